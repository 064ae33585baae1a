import { accounts, entitlements } from "@shelf/api";
import { schema } from "@shelf/db";
import { optionalDate, optionalString, requiredInteger, requiredString, UsageError } from "../args";
import type { Command } from "../command";

export const entitlementGrant: Command = {
  name: "entitlement:grant",
  summary: "Give an account access to a product",
  synopsis: "--email E --product ID [--expires ISO] [--updates-until ISO] [--type grant|purchase|...]",
  details: [
    "--expires ends access; --updates-until ends the update window (may be in the past).",
    `--type is one of ${schema.grantTypes.join(", ")} (default grant).`,
  ],
  options: {
    email: { type: "string" },
    product: { type: "string" },
    expires: { type: "string" },
    "updates-until": { type: "string" },
    type: { type: "string" },
  },
  prepare(values) {
    const email = requiredString(values, "email");
    const productId = requiredInteger(values, "product", { min: 1 });
    const accessExpiresAt = optionalDate(values, "expires");
    const updatesSupportedUntil = optionalDate(values, "updates-until");
    const grantType = optionalString(values, "type") ?? "grant";
    if (!(schema.grantTypes as readonly string[]).includes(grantType)) {
      throw new UsageError(`--type must be one of ${schema.grantTypes.join(", ")}, got "${grantType}".`);
    }
    if (accessExpiresAt && accessExpiresAt.getTime() <= Date.now()) {
      throw new UsageError(`--expires must be in the future, got ${accessExpiresAt.toISOString()}.`);
    }
    return async ({ db }) => {
      const account = await accounts.requireAccountByEmail(db, email);
      const entitlement = await entitlements.grantEntitlement(db, {
        accountId: account.id,
        productId,
        grantType: grantType as schema.GrantType,
        accessExpiresAt,
        updatesSupportedUntil,
      });
      return {
        json: entitlement,
        text: `Granted product ${productId} to ${account.email}: entitlement ${entitlement.id} (${entitlement.grant_type}), access until ${entitlement.access_expires_at ?? "forever"}, updates until ${entitlement.updates_supported_until ?? "forever"}.`,
      };
    };
  },
};
