import { z } from "zod";
import { DateTime } from "../../schemas/common";
import { deviceSignInClientIds } from "./clients";

export const DEVICE_CODE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";

export const DeviceCodeInput = z.object({
  client_id: z.enum(deviceSignInClientIds).describe("Which client asks: `shelf-cli` or `shelf-desktop`."),
  device_name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("What the device calls itself (a host name): shown to the person as the device's own words."),
});
export type DeviceCodeInput = z.infer<typeof DeviceCodeInput>;

export const DeviceCodeData = z
  .object({
    device_code: z.string().describe("The client's secret for polling; never shown to the person."),
    user_code: z.string().describe("What the person enters on the verification page, e.g. `BDWP-HQPK`."),
    verification_uri: z.string().describe("The page where the person signs in and enters the code."),
    verification_uri_complete: z
      .string()
      .describe("The same page with the code filled in (for a QR code); the person still confirms it."),
    expires_in: z.number().int().describe("Seconds until both codes expire."),
    interval: z.number().int().describe("Seconds to wait between polls."),
  })
  .meta({ id: "DeviceCodeData" });
export type DeviceCodeData = z.infer<typeof DeviceCodeData>;

export const DeviceTokenInput = z.object({
  grant_type: z.literal(DEVICE_CODE_GRANT_TYPE),
  device_code: z.string().min(1).max(200),
  client_id: z.enum(deviceSignInClientIds),
});
export type DeviceTokenInput = z.infer<typeof DeviceTokenInput>;

export const DeviceTokenData = z
  .object({
    access_token: z.string().describe("The new account API key (kind `device`): send it as `Authorization: Bearer`."),
    token_type: z.literal("Bearer"),
    key: z.object({
      id: z.number().int(),
      name: z.string().nullable(),
      prefix: z.string(),
      abilities: z.array(z.string()),
      expires_at: DateTime.nullable().describe("Pushed out by 90 days on each use (contract 5.10)."),
    }),
    account: z.object({ id: z.number().int(), email: z.string() }),
  })
  .meta({ id: "DeviceTokenData" });
export type DeviceTokenData = z.infer<typeof DeviceTokenData>;

export const UserCodeInput = z.object({ user_code: z.string().max(64) });

export const DeviceSignInRequestData = z.object({
  user_code: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  device_name: z.string().nullable(),
  abilities: z.array(z.string()),
  requested_at: z.string(),
  expires_at: z.string(),
});
export type DeviceSignInRequestData = z.infer<typeof DeviceSignInRequestData>;

export const DeviceSignInDecisionInput = z.object({
  user_code: z.string().max(64),
  decision: z.enum(["approve", "deny"]),
});

export const DeviceSignInDecisionData = z.object({
  decision: z.enum(["approve", "deny"]),
  client_name: z.string(),
  device_name: z.string().nullable(),
});
