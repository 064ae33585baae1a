import { AsyncLocalStorage } from "node:async_hooks";
import {
  checkCredentials,
  endWebSessions,
  startWebSession,
  WEB_SESSION_MAX_AGE_SECONDS,
  webSessionAccount,
} from "@shelf/api";
import { CLIENT_ADDRESS_HEADER } from "@shelf/api/host/pages";
import { databaseDown, databaseUnavailable, withDeadline } from "@shelf/db";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getRuntime, type WebRuntime } from "../runtime";
import { safeReturnPath } from "./return-path";

/** A session cookie whose session was ended (sign-out elsewhere, a password change) or expired: signed out. */
class SessionEnded extends Error {
  constructor() {
    super("session ended");
    this.name = "SessionEnded";
  }
}

/** What authorize() throws when failures are throttled; the sign-in form reads the code and the seconds. */
export const THROTTLED_ERROR = "Throttled";

const cache = new WeakMap<WebRuntime, AuthOptions>();

/**
 * What went wrong in the session lookup of the current `getServerSession` call (run by `currentSession`): next-auth
 * reads any failure of its callbacks as "no session", which for a database that did not answer is an outage, not a
 * sign-out.
 */
export const sessionLookup = new AsyncLocalStorage<{ unavailable?: string }>();

/**
 * next-auth, configured once per server: email and password (argon2id, failures throttled per account and per
 * address in the shared store), a sealed JWT cookie that carries only a session's secret, and that session's row in
 * the database as the truth, so that signing out and password changes end sessions on every instance at once.
 */
export function authOptions(): AuthOptions {
  const runtime = getRuntime();
  const cached = cache.get(runtime);
  if (cached) return cached;
  const { db, log, guessLimits } = runtime;
  const options: AuthOptions = {
    secret: runtime.authSecret,
    useSecureCookies: runtime.secureCookies,
    session: { strategy: "jwt", maxAge: WEB_SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers: [
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { type: "email" }, password: { type: "password" } },
        async authorize(credentials, req) {
          const email = typeof credentials?.email === "string" ? credentials.email : "";
          const password = typeof credentials?.password === "string" ? credentials.password : "";
          if (!email || !password) return null;
          const header = req.headers?.[CLIENT_ADDRESS_HEADER];
          const address = typeof header === "string" ? header : "unknown";
          const outcome = await checkCredentials(db, guessLimits.signIn, { email, password, address });
          if (outcome.ok) {
            const agent = req.headers?.["user-agent"];
            // Where the sign-in came from goes into the security log with the session (the jwt callback below).
            return {
              id: String(outcome.account.id),
              email: outcome.account.email,
              name: outcome.account.name,
              address,
              userAgent: typeof agent === "string" ? agent : null,
            };
          }
          if (outcome.reason === "throttled") {
            log.warn({ address }, "sign-in failures throttled");
            throw new Error(`${THROTTLED_ERROR}:${outcome.retryAfterSeconds}`);
          }
          return null;
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          // Signing in: a new session row; the cookie carries its secret, sealed with the auth secret.
          const from = user as { address?: string; userAgent?: string | null };
          const session = await startWebSession(db, Number(user.id), {
            address: from.address ?? null,
            userAgent: from.userAgent ?? null,
          });
          return { sid: session.secret, accountId: Number(user.id), sessionId: session.sessionId };
        }
        const live = typeof token.sid === "string" ? await withinDeadline(webSessionAccount(db, token.sid)) : null;
        if (!live) throw new SessionEnded();
        return {
          ...token,
          accountId: live.accountId,
          sessionId: live.sessionId,
          email: live.email,
          name: live.name,
          emailVerified: live.emailVerified,
        };
      },
      async session({ session, token }) {
        return {
          expires: session.expires,
          user: { email: token.email ?? null, name: token.name ?? null },
          accountId: token.accountId,
          sessionId: token.sessionId,
          emailVerified: token.emailVerified === true,
        };
      },
      // Back to a page of this site only, whatever a callbackUrl says (absolute: next-auth's client parses it).
      async redirect({ url, baseUrl }) {
        const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url;
        return `${baseUrl}${safeReturnPath(path) ?? "/account"}`;
      },
    },
    events: {
      // Signing out ends this browser's session (its row, not only the cookie); "sign out everywhere" is on the
      // sessions page.
      async signOut({ token }) {
        if (typeof token?.accountId === "number" && typeof token.sessionId === "number") {
          await endWebSessions(db, token.accountId, { only: token.sessionId });
        }
      },
    },
    logger: {
      error(code, metadata) {
        if (code === "JWT_SESSION_ERROR" && metadata instanceof SessionEnded) return;
        // next-auth's metadata may hold the request; the code is what an operator needs.
        log.warn({ code }, "sign-in library error");
      },
      warn(code) {
        log.warn({ code }, "sign-in library warning");
      },
      debug() {},
    },
  };
  cache.set(runtime, options);
  return options;

  /** Waits no longer than the API would; a database that does not answer is reported, so later pages fail fast. */
  async function withinDeadline<T>(work: Promise<T>): Promise<T> {
    try {
      return await withDeadline(work, runtime.dbDeadlineMs);
    } catch (error) {
      const reason = databaseUnavailable(error);
      if (reason && databaseDown(reason)) runtime.health.reportFailure(reason);
      const lookup = sessionLookup.getStore();
      if (reason && lookup) lookup.unavailable = reason;
      throw error;
    }
  }
}
