import { createAttemptLimiter } from "@shelf/server/attempt-limit";
import { sessionCaller } from "../../auth/web-session";
import { publicProcedure, sessionProcedure } from "../../procedures";
import { router } from "../../trpc";
import {
  DEVICE_CODE_GRANT_TYPE,
  DeviceCodeData,
  DeviceCodeInput,
  DeviceSignInDecisionData,
  DeviceSignInDecisionInput,
  DeviceSignInRequestData,
  DeviceTokenData,
  DeviceTokenInput,
  UserCodeInput,
} from "./schemas";
import {
  DEVICE_CODE_TTL_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  decideDeviceSignIn,
  findDeviceSignIn,
  pollDeviceSignIn,
  startDeviceSignIn,
} from "./service";

const tags = ["device sign-in"];

/** Sign-ins one address may start a minute, and polls it may make (a household or an office behind one address). */
export const DEVICE_CODES_PER_MINUTE = 10;
export const DEVICE_POLLS_PER_MINUTE = 120;

export const deviceSignInRouter = router({
  code: publicProcedure
    .meta({
      ability: "public",
      formBody: true,
      addressLimit: { name: "device-sign-in-codes", perMinute: DEVICE_CODES_PER_MINUTE },
      openapi: {
        method: "POST",
        path: "/api/device-sign-in/code",
        tags,
        summary: "Start a device sign-in (no key)",
        description: `The device authorization request of RFC 8628 (3.1), for the command-line client and the desktop apps: JSON or a URL-encoded form. Show \`user_code\` and \`verification_uri\` to the person, then poll \`POST /api/device-sign-in/token\` every \`interval\` seconds. Both codes expire after ${DEVICE_CODE_TTL_SECONDS / 60} minutes. At most ${DEVICE_CODES_PER_MINUTE} a minute from one address.`,
      },
      example: { build: () => ({ body: { client_id: "shelf-cli", device_name: "matrix-host" } }) },
    })
    .input(DeviceCodeInput)
    .output(DeviceCodeData)
    .mutation(({ ctx, input }) => startDeviceSignIn(ctx.db, input, ctx.baseUrl)),

  token: publicProcedure
    .meta({
      ability: "public",
      formBody: true,
      addressLimit: { name: "device-sign-in-polls", perMinute: DEVICE_POLLS_PER_MINUTE },
      errors: ["authorization_pending", "slow_down", "access_denied", "expired_token", "invalid_grant"],
      openapi: {
        method: "POST",
        path: "/api/device-sign-in/token",
        tags,
        summary: "Poll a device sign-in for its key (no key)",
        description: `The device access token request of RFC 8628 (3.4), JSON or a URL-encoded form. Until the person decides: 400 \`authorization_pending\`; polled sooner than \`interval\` (${DEVICE_POLL_INTERVAL_SECONDS} seconds at first): 400 \`slow_down\`, and the interval grows by 5 seconds (the body's \`interval\`); denied: 400 \`access_denied\` (with \`reason: "api_key_limit_reached"\` when the page could not approve because no account-wide key slot was free, which ends the sign-in); past its life: 400 \`expired_token\`; unknown, another client's, or already used: 400 \`invalid_grant\`. Errors carry \`error_description\` besides \`message\`. Once approved, the next poll receives a new account API key of kind \`device\` with the six device sign-in abilities (contract 5.7), once: when the account has no free account-wide slot, the least recently used key of the same client is revoked (contract 5.10).`,
      },
      example: {
        // A sign-in the example's account has approved: the poll receives its key.
        build: async ({ db, accountId }) => {
          const started = await startDeviceSignIn(db, { client_id: "shelf-cli" }, "http://localhost");
          const limiter = createAttemptLimiter({ attempts: 10, windowSeconds: 60, name: "matrix" });
          await decideDeviceSignIn(db, sessionCaller(accountId, 0), limiter, {
            user_code: started.user_code,
            decision: "approve",
          });
          return {
            body: { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: started.device_code, client_id: "shelf-cli" },
          };
        },
      },
    })
    .input(DeviceTokenInput)
    .output(DeviceTokenData)
    .mutation(async ({ ctx, input }) => {
      // RFC 6749 5.1: a response carrying a credential is never stored by caches.
      ctx.res.headers["cache-control"] = "no-store";
      return pollDeviceSignIn(ctx.db, input, ctx.keyBrand);
    }),

  find: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(UserCodeInput)
    .output(DeviceSignInRequestData)
    .query(({ ctx, input }) => findDeviceSignIn(ctx.db, ctx.caller, ctx.guessLimits.userCodes, input.user_code)),

  decide: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(DeviceSignInDecisionInput)
    .output(DeviceSignInDecisionData)
    .mutation(({ ctx, input }) => decideDeviceSignIn(ctx.db, ctx.caller, ctx.guessLimits.userCodes, input)),
});
