/**
 * What the kit knows of errors: an error that carries a code of the host's error table (an expected outcome, said to
 * the client, never a bug), and the contract's 422 field errors.
 */
export abstract class CodedError extends Error {
  abstract readonly code: string;
  /** The HTTP status the host's error table gives the code. */
  abstract readonly status: number;
  /** Extra fields merged into the error body (a device list for a 409), if any. */
  abstract readonly details: Record<string, unknown> | undefined;
}

/** Field errors in the contract's 422 shape: `{field: [messages]}`. */
export type FieldErrors = Record<string, string[]>;

export type Issue = { path?: readonly (PropertyKey | { key: PropertyKey })[]; message: string };

/** Zod (or any Standard Schema) issues in the contract's `{field: [messages]}` shape. */
export function fieldErrors(issues: readonly Issue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field =
      (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".") || "input";
    const list = errors[field] ?? [];
    if (!list.includes(issue.message)) list.push(issue.message);
    errors[field] = list;
  }
  return errors;
}

export class ValidationError extends Error {
  readonly errors: FieldErrors;
  constructor(errors: FieldErrors, message = "The given data was invalid.") {
    super(message);
    this.name = "ValidationError";
    this.errors = errors;
  }
}
