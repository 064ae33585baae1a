import { type Caller, createCaller, createContext, sessionCaller } from "@shelf/api";
import { setPageDatabaseUnavailable } from "@shelf/api/host/pages";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { getLocale } from "next-intl/server";
import { cache } from "react";
import { getRuntime } from "../runtime";
import { DATABASE_UNAVAILABLE_DIGEST } from "./database-unavailable";
import { authOptions, sessionLookup } from "./options";
import { safeReturnPath } from "./return-path";

/**
 * The session lookup did not get an answer from the database. Its digest reaches the error page (Next keeps an
 * error's own digest), which then shows the app's outage message; the server answers 503 with Retry-After.
 */
class DatabaseUnavailable extends Error {
  readonly digest = DATABASE_UNAVAILABLE_DIGEST;
  constructor(reason: string) {
    super(`The database did not answer the session lookup (${reason}).`);
    this.name = "DatabaseUnavailable";
  }
}

export type PageSession = {
  accountId: number;
  sessionId: number;
  email: string;
  name: string | null;
  emailVerified: boolean;
};

/**
 * The signed-in person, or null. next-auth opens the sealed cookie and our jwt callback checks the session's row on
 * every request, so an ended session is refused from the next page on. Once per render: the layout and the page ask
 * for the same answer (React's cache lasts one server request).
 */
export const currentSession = cache(async (): Promise<PageSession | null> => {
  const lookup: { unavailable?: string } = {};
  const session = await sessionLookup.run(lookup, () => getServerSession(authOptions()));
  // next-auth reads a failed lookup as no session: a lookup the database did not answer within the deadline (or
  // while it is down) is an outage, answered with the app's 503 page, not a sign-out.
  if (lookup.unavailable || (!session && !getRuntime().health.up)) {
    setPageDatabaseUnavailable();
    throw new DatabaseUnavailable(lookup.unavailable ?? "database down");
  }
  if (!session || typeof session.accountId !== "number" || typeof session.sessionId !== "number") return null;
  return {
    accountId: session.accountId,
    sessionId: session.sessionId,
    email: session.user?.email ?? "",
    name: session.user?.name ?? null,
    emailVerified: session.emailVerified === true,
  };
});

/**
 * For the layout around every page: a session lookup the database did not answer shows no account in the header,
 * while the page, whose own lookup fails the same way, shows the outage (its error page, 503).
 */
export function noAccountOnOutage(error: unknown): null {
  if (error instanceof DatabaseUnavailable) return null;
  throw error;
}

/** The signed-in person, or a redirect to sign in and come back to `returnTo`. */
export async function requireSession(returnTo: string): Promise<PageSession> {
  const session = await currentSession();
  if (!session) redirect(`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}`);
  return session;
}

/** The procedures as the signed-in person may call them: every account ability, and what only a person may do. */
export async function pageCaller(session: PageSession) {
  const runtime = getRuntime();
  const caller: Caller = sessionCaller(session.accountId, session.sessionId);
  return createCaller(
    createContext({
      db: runtime.db,
      credential: { status: "valid", caller },
      baseUrl: runtime.baseUrl,
      delivery: runtime.delivery,
      // Labels the API writes (order and subscription states) in the page's language, which may differ from the browser's.
      acceptLanguage: await getLocale(),
      keyBrand: runtime.config.api.SHELF_KEY_PREFIX,
      guessLimits: runtime.guessLimits,
      oauth: runtime.oauth,
      mcp: runtime.mcp,
    }),
  );
}

export type PageSearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * For the pages a person signs in or up on: the query, and where to go once signed in (`callbackUrl` when it is a
 * path of this site, else the account); a person already signed in goes there at once.
 */
export async function signedOutPage(searchParams: PageSearchParams) {
  const params = await searchParams;
  const returnTo = safeReturnPath(typeof params.callbackUrl === "string" ? params.callbackUrl : null) ?? "/account";
  if (await currentSession()) redirect(returnTo);
  return { params, returnTo };
}
