import { accounts, defaultAbilities, keys } from "@shelf/api";
import {
  flag,
  optionalAbilities,
  optionalDate,
  optionalInteger,
  optionalString,
  requiredString,
  UsageError,
} from "../args";
import { byIdCommand, type Command } from "../command";

export const keyCreate: Command = {
  name: "key:create",
  summary: "Create an API key for an account and print it once",
  synopsis: "--email E [--abilities a,b] [--product ID] [--expires ISO] [--name N] [--device]",
  details: [
    `Default abilities: ${defaultAbilities.created.join(", ")};`,
    `with --device: ${defaultAbilities.device.join(", ")} (device keys expire after 90 days without use).`,
    "--product scopes the key to one product. At most 3 live keys per scope.",
  ],
  options: {
    email: { type: "string" },
    abilities: { type: "string" },
    product: { type: "string" },
    expires: { type: "string" },
    name: { type: "string" },
    device: { type: "boolean" },
  },
  prepare(values) {
    const email = requiredString(values, "email");
    const abilities = optionalAbilities(values, "abilities");
    const productId = optionalInteger(values, "product", { min: 1 });
    const expiresAt = optionalDate(values, "expires");
    const name = optionalString(values, "name");
    const device = flag(values, "device");
    if (device && expiresAt) {
      throw new UsageError("--expires does not apply to --device keys: they expire after 90 days without use.");
    }
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new UsageError(`--expires must be in the future, got ${expiresAt.toISOString()}.`);
    }
    return async ({ db, brand }) => {
      const account = await accounts.requireAccountByEmail(db, email);
      const { key, record } = await keys.createApiKey(
        db,
        { accountId: account.id, kind: device ? "device" : "created", name, abilities, productId, expiresAt },
        brand,
      );
      const scope = record.product_id === null ? "account-wide" : `product ${record.product_id}`;
      return {
        json: { ...record, key },
        text: [
          `Created ${record.kind} key ${record.id} (${scope}) for ${account.email}.`,
          `  prefix     ${record.prefix}`,
          `  abilities  ${record.abilities.join(", ")}`,
          `  expires    ${record.expires_at ?? "never"}`,
          `  key        ${key}`,
          "The key is shown only this once: store it now.",
        ].join("\n"),
      };
    };
  },
};

export const keyRevoke = byIdCommand({
  name: "key:revoke",
  summary: "Revoke an API key by id",
  synopsis: "--id ID",
  act: keys.revokeApiKeyById,
  describe: (record) =>
    `Revoked key ${record.id} (${record.prefix}) of account ${record.account_id} at ${record.revoked_at}.`,
});
