import { type AttemptLimiter, createAttemptLimiter } from "@shelf/server/attempt-limit";

/** Failed sign-ins allowed per account (by email) and per client address in one window. */
export const SIGN_IN_ATTEMPTS_PER_ACCOUNT = 10;
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 50;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/** Wrong device sign-in user codes one account may enter in a window (RFC 8628 5.1: codes are short). */
export const USER_CODE_ATTEMPTS_PER_ACCOUNT = 10;
export const USER_CODE_WINDOW_SECONDS = 10 * 60;

/**
 * "Forgot password" requests allowed per hour: per email typed (whether or not an account has it), per account (an
 * email's case and spaces aside, the same account), and per client address.
 */
export const RECOVERY_REQUESTS_PER_EMAIL = 5;
export const RECOVERY_REQUESTS_PER_ACCOUNT = 3;
export const RECOVERY_REQUESTS_PER_ADDRESS = 20;
export const RECOVERY_WINDOW_SECONDS = 60 * 60;

export type SignInLimits = { account: AttemptLimiter; address: AttemptLimiter };
export type RecoveryLimits = { email: AttemptLimiter; account: AttemptLimiter; address: AttemptLimiter };

/** The limits on guessing through the account pages: passwords, and device sign-in user codes. */
export type GuessLimits = {
  signIn: SignInLimits;
  userCodes: AttemptLimiter;
  recovery: RecoveryLimits;
  ready: (timeoutMs?: number) => Promise<boolean>;
  close: () => Promise<void>;
};

/** The guessing limits, in Redis when several instances must share them. */
export function createGuessLimits(options: { redisUrl?: string; namespace: string }): GuessLimits {
  const make = (what: string, attempts: number, windowSeconds: number) =>
    createAttemptLimiter({ attempts, windowSeconds, redisUrl: options.redisUrl, name: `${options.namespace}:${what}` });
  const limiters = [
    make("sign-in:account", SIGN_IN_ATTEMPTS_PER_ACCOUNT, SIGN_IN_WINDOW_SECONDS),
    make("sign-in:address", SIGN_IN_ATTEMPTS_PER_ADDRESS, SIGN_IN_WINDOW_SECONDS),
    make("user-code:account", USER_CODE_ATTEMPTS_PER_ACCOUNT, USER_CODE_WINDOW_SECONDS),
    make("recovery:email", RECOVERY_REQUESTS_PER_EMAIL, RECOVERY_WINDOW_SECONDS),
    make("recovery:account", RECOVERY_REQUESTS_PER_ACCOUNT, RECOVERY_WINDOW_SECONDS),
    make("recovery:address", RECOVERY_REQUESTS_PER_ADDRESS, RECOVERY_WINDOW_SECONDS),
  ] as const;
  const [account, address, userCodes, recoveryEmail, recoveryAccount, recoveryAddress] = limiters;
  return {
    signIn: { account, address },
    userCodes,
    recovery: { email: recoveryEmail, account: recoveryAccount, address: recoveryAddress },
    ready: async (timeoutMs) => (await Promise.all(limiters.map((limiter) => limiter.ready(timeoutMs)))).every(Boolean),
    close: async () => {
      await Promise.all(limiters.map((limiter) => limiter.close()));
    },
  };
}
