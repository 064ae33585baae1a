import { DomainError, ValidationError } from "@shelf/api";
import { getTranslations } from "next-intl/server";
import type { FormState } from "./state";

type Issue = { path?: readonly PropertyKey[]; message: string };

/**
 * A refused procedure call as a form's answer, in the page's language: a domain error by its code (the service's
 * English message when there is no translation), field errors (the service's 422, or the input schema's own) as
 * "check this field" (in `fieldMessages`' words where a form names a field its own way: an account's name is not a
 * key's). Anything else is a fault, thrown on to the error page and the log.
 */
export async function failedForm(
  error: unknown,
  fieldMessages: Record<string, string> = {},
): Promise<Extract<FormState<never>, { status: "failed" }>> {
  const t = await getTranslations("errors");
  const refusal = refusalOf(error);
  if (refusal instanceof DomainError) {
    const message = t.has(refusal.code) ? t(refusal.code) : refusal.message;
    return { status: "failed", message, fields: {}, code: refusal.code };
  }
  if (refusal) {
    const fields: Record<string, string[]> = {};
    for (const name of Object.keys(refusal.errors)) {
      fields[name] = [fieldMessages[name] ?? (t.has(`fields.${name}`) ? t(`fields.${name}`) : t("field"))];
    }
    return { status: "failed", message: t("invalid"), fields };
  }
  throw error;
}

/**
 * What refused a procedure called through createCaller (tRPC carries it as the cause): a domain error, or field
 * errors (the service's own, or the input schema's issues); null for a fault.
 */
export function refusalOf(error: unknown): DomainError | ValidationError | null {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof DomainError || cause instanceof ValidationError) return cause;
  const issues = issuesOf(cause);
  if (!issues) return null;
  const errors: Record<string, string[]> = {};
  for (const issue of issues) errors[fieldOf(issue)] = [...(errors[fieldOf(issue)] ?? []), issue.message];
  return new ValidationError(errors);
}

function issuesOf(error: unknown): Issue[] | null {
  if (!error || typeof error !== "object" || !("issues" in error)) return null;
  const issues = (error as { issues: unknown }).issues;
  return Array.isArray(issues) ? (issues as Issue[]) : null;
}

function fieldOf(issue: Issue): string {
  return (issue.path ?? []).map(String).join(".") || "input";
}
