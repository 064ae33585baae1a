/**
 * What a form's server action answers: nothing yet, done, or what went wrong (a message, per-field messages, and the
 * refusal's code when a service refused).
 */
export type FormState<Data = undefined> =
  | { status: "idle" }
  | { status: "done"; data: Data }
  | {
      status: "failed";
      message: string;
      fields: Record<string, string[]>;
      code?: string;
      /** Where to go to fix it (the keys of a full scope, say). */
      link?: { href: string; label: string };
    };

export const idle = { status: "idle" } as const;
