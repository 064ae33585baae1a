import "next-auth";
import "next-auth/jwt";

declare module "next-auth" {
  interface Session {
    accountId: number;
    /** The session's row id (never its secret). */
    sessionId: number;
    /** Whether the account's address is verified (the banner asks for it until it is). */
    emailVerified: boolean;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    /** The session's secret: only ever inside the sealed cookie. */
    sid?: string;
    accountId?: number;
    sessionId?: number;
    emailVerified?: boolean;
  }
}
