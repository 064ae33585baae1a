/**
 * The client policy every device checks against (minimum version, recheck and offline time) and its list of revoked
 * devices: the operator changes both (`policy:*`), a person blocks their own device, and each change gives the policy a
 * new version.
 */
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, sql } from "drizzle-orm";
import { DomainError, parseInput } from "./errors";
import { SetPolicyInput } from "./schemas/client-policy";
import { hasControlCharacter } from "./schemas/common";
import { recordSecurityEvent } from "./security-log";

const { clientPolicy, clientPolicyRevocations, deviceActivations, products } = schema;

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Every change to the policy, revocations included, gives it a new version. */
export async function bumpVersion(tx: Transaction) {
  const [row] = await tx
    .update(clientPolicy)
    .set({ version: sql`${clientPolicy.version} + 1`, updatedAt: sql`now()` })
    .where(eq(clientPolicy.id, 1))
    .returning();
  return row as typeof clientPolicy.$inferSelect;
}

function toPolicyRecord(row: typeof clientPolicy.$inferSelect) {
  return {
    min_client_version: row.minClientVersion,
    ttl_days: row.ttlDays,
    recheck_hours: row.recheckHours,
    version: row.version,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** `policy:set`: the minimum client version, recheck interval and offline time. */
export async function setPolicy(db: Database, rawInput: SetPolicyInput) {
  const input = parseInput(SetPolicyInput, rawInput);
  return db.transaction(async (tx) => {
    await tx
      .update(clientPolicy)
      .set({
        ...(input.minClientVersion !== undefined ? { minClientVersion: input.minClientVersion } : {}),
        ...(input.recheckHours !== undefined ? { recheckHours: input.recheckHours } : {}),
        ...(input.ttlDays !== undefined ? { ttlDays: input.ttlDays } : {}),
      })
      .where(eq(clientPolicy.id, 1));
    return toPolicyRecord(await bumpVersion(tx));
  });
}

function checkIdentifier(deviceIdentifier: string) {
  if (deviceIdentifier.length === 0 || deviceIdentifier.length > 255 || hasControlCharacter(deviceIdentifier)) {
    throw new DomainError("malformed_request", "A device id has 1 to 255 printable characters.");
  }
}

/**
 * `policy:revoke`: cuts a device (by the identifier it reports) off from a product, whatever account it is in: its
 * seats on the product are released, its license checks answer `device_revoked`, and the policy lists it for the
 * clients of the accounts that know it. Revoking twice changes nothing more.
 */
export async function revokeDevice(
  db: Database,
  productId: number,
  deviceIdentifier: string,
  /** The account that blocked its own device (the product page); absent for the operator's `policy:revoke`. */
  by?: { accountId: number; name: string | null },
) {
  checkIdentifier(deviceIdentifier);
  return db.transaction(async (tx) => {
    const [product] = await tx.select({ id: products.id }).from(products).where(eq(products.id, productId));
    if (!product) throw new DomainError("not_found", "Product not found.");
    await tx
      .insert(clientPolicyRevocations)
      .values({ productId, deviceIdentifier, blockedByAccountId: by?.accountId ?? null })
      .onConflictDoNothing({ target: [clientPolicyRevocations.productId, clientPolicyRevocations.deviceIdentifier] });
    const released = await tx
      .delete(deviceActivations)
      .where(
        and(
          eq(deviceActivations.productId, productId),
          sql`${deviceActivations.deviceId} in (select d.id from devices d where d.identifier = ${deviceIdentifier})`,
        ),
      )
      .returning({ accountId: deviceActivations.accountId });
    const policy = await bumpVersion(tx);
    // In the security log of the account that blocked it and of every account whose seat it held.
    const accounts = new Set([...(by ? [by.accountId] : []), ...released.map((row) => row.accountId)]);
    for (const accountId of accounts) {
      await recordSecurityEvent(tx, {
        accountId,
        kind: "device_blocked",
        detail: {
          identifier: deviceIdentifier,
          product: productId,
          name: accountId === by?.accountId ? by.name : null,
          by: accountId === by?.accountId ? "owner" : "operator",
        },
      });
    }
    return {
      product_id: productId,
      device_id: deviceIdentifier,
      seats_released: released.length,
      version: policy.version,
    };
  });
}

/** `policy:restore`: lifts a revocation; the device takes a seat again at its next license check. */
export async function restoreDevice(db: Database, productId: number, deviceIdentifier: string) {
  checkIdentifier(deviceIdentifier);
  return db.transaction(async (tx) => {
    const removed = await tx
      .delete(clientPolicyRevocations)
      .where(
        and(
          eq(clientPolicyRevocations.productId, productId),
          eq(clientPolicyRevocations.deviceIdentifier, deviceIdentifier),
        ),
      )
      .returning({ id: clientPolicyRevocations.id });
    if (removed.length === 0) throw new DomainError("not_found", "That device is not revoked for that product.");
    const policy = await bumpVersion(tx);
    return { product_id: productId, device_id: deviceIdentifier, version: policy.version };
  });
}
