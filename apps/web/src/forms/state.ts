/** What a form's server action answers: nothing yet, done, or what went wrong (a message and per-field messages). */
export type FormState<Data = undefined> =
  | { status: "idle" }
  | { status: "done"; data: Data }
  | { status: "failed"; message: string; fields: Record<string, string[]> };

export const idle = { status: "idle" } as const;
