import type { accountEmail } from "@shelf/api";
import { getRuntime } from "../runtime";

/** What the account's email services need from the server: the mailer, the links' base URL, the shared limits. */
export function emailDeps(): accountEmail.EmailDeps & {
  signInLimits: ReturnType<typeof getRuntime>["guessLimits"]["signIn"];
} {
  const { mailer, baseUrl, log, guessLimits } = getRuntime();
  return { mailer, baseUrl, log, limits: guessLimits.recovery, signInLimits: guessLimits.signIn };
}
