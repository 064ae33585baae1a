import { DomainError, ValidationError } from "@shelf/api";
import { getTranslations } from "next-intl/server";
import type { FormState } from "./state";

type Issue = { path?: readonly PropertyKey[]; message: string };

/**
 * A refused procedure call as a form's answer, in the page's language: a domain error by its code (the service's
 * English message when there is no translation), field errors (the service's 422, or the input schema's own) as
 * "check this field". Anything else is a fault, thrown on to the error page and the log.
 */
export async function failedForm(error: unknown): Promise<Extract<FormState<never>, { status: "failed" }>> {
  const t = await getTranslations("errors");
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof DomainError) {
    return { status: "failed", message: t.has(cause.code) ? t(cause.code) : cause.message, fields: {} };
  }
  const issues = issuesOf(cause);
  if (cause instanceof ValidationError || issues) {
    const fields: Record<string, string[]> = {};
    const names = cause instanceof ValidationError ? Object.keys(cause.errors) : (issues ?? []).map(fieldOf);
    for (const name of names) fields[name] = [t.has(`fields.${name}`) ? t(`fields.${name}`) : t("field")];
    return { status: "failed", message: t("invalid"), fields };
  }
  throw error;
}

function issuesOf(error: unknown): Issue[] | null {
  if (!error || typeof error !== "object" || !("issues" in error)) return null;
  const issues = (error as { issues: unknown }).issues;
  return Array.isArray(issues) ? (issues as Issue[]) : null;
}

function fieldOf(issue: Issue): string {
  return (issue.path ?? []).map(String).join(".") || "input";
}
