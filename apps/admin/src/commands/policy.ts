import { policyAdmin } from "@shelf/api";
import { optionalInteger, optionalString, requiredInteger, requiredString, UsageError } from "../args";
import type { Command } from "../command";

export const policySet: Command = {
  name: "policy:set",
  summary: "Change the signed client policy (minimum client version, recheck interval, offline time)",
  synopsis: "[--min-client-version V] [--recheck-hours N] [--ttl-days N]",
  details: [
    "Clients older than --min-client-version should ask to update; they check licenses online every --recheck-hours",
    "(1 to 8760) and trust a license certificate offline for --ttl-days (1 to 365; new certificates only).",
    "Every change gives the policy a new version.",
  ],
  options: {
    "min-client-version": { type: "string" },
    "recheck-hours": { type: "string" },
    "ttl-days": { type: "string" },
  },
  prepare(values) {
    const input = {
      minClientVersion: optionalString(values, "min-client-version"),
      recheckHours: optionalInteger(values, "recheck-hours", { min: 1 }),
      ttlDays: optionalInteger(values, "ttl-days", { min: 1 }),
    };
    if (Object.values(input).every((value) => value === undefined)) {
      throw new UsageError("Name at least one of --min-client-version, --recheck-hours and --ttl-days.");
    }
    return async ({ db }) => {
      const policy = await policyAdmin.setPolicy(db, input);
      return {
        json: policy,
        text: `Client policy version ${policy.version}: clients from ${policy.min_client_version}, license checks every ${policy.recheck_hours} h, certificates trusted offline for ${policy.ttl_days} days.`,
      };
    };
  },
};

const deviceOptions = { product: { type: "string" }, device: { type: "string" } } as const;

export const policyRevoke: Command = {
  name: "policy:revoke",
  summary: "Cut a device off from a product (its seat is released and its clients are told)",
  synopsis: "--product ID --device D",
  details: [
    "D is the device_id the device reports in license checks. Its seats on the product are released in every",
    "account, its license checks answer device_revoked, and the client policy of the accounts that know it lists it.",
    "policy:restore undoes it.",
  ],
  options: deviceOptions,
  prepare(values) {
    const productId = requiredInteger(values, "product", { min: 1 });
    const device = requiredString(values, "device");
    return async ({ db }) => {
      const revoked = await policyAdmin.revokeDevice(db, productId, device);
      return {
        json: revoked,
        text: `Revoked device ${revoked.device_id} for product ${revoked.product_id}: ${revoked.seats_released} seat(s) released, client policy version ${revoked.version}.`,
      };
    };
  },
};

export const policyRestore: Command = {
  name: "policy:restore",
  summary: "Lift a device's revocation for a product",
  synopsis: "--product ID --device D",
  options: deviceOptions,
  prepare(values) {
    const productId = requiredInteger(values, "product", { min: 1 });
    const device = requiredString(values, "device");
    return async ({ db }) => {
      const restored = await policyAdmin.restoreDevice(db, productId, device);
      return {
        json: restored,
        text: `Restored device ${restored.device_id} for product ${restored.product_id}: client policy version ${restored.version}.`,
      };
    };
  },
};
