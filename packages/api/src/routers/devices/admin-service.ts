import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { bumpVersion, revokeDevice } from "../../client-policy";
import { DomainError } from "../../errors";
import { entitledSql } from "../../product-access";
import { recordSecurityEvent } from "../../security-log";
import { isoSql, sqlRows } from "../../sql-text";

export type DeviceListRow = {
  id: number;
  device_id: string;
  name: string | null;
  activated_at: string | null;
  last_seen_at: string | null;
  last_app_version: string | null;
  products: { product_id: number; product_name: string; activated_at: string; last_checked_at: string }[];
  blocked: { product_id: number; product_name: string; by: "owner" | "seller"; blocked_at: string }[];
};

/**
 * `device:list`: an account's devices, the products each holds a seat on, and the products it is blocked from: by the
 * account's owner (who may unblock it), or by the seller (`policy:revoke`) on a product the account has held.
 */
export async function listDevices(db: Database, accountId: number): Promise<DeviceListRow[]> {
  return sqlRows<DeviceListRow>(
    db,
    sql`select d.id, d.identifier as device_id, d.name, ${sql.raw(isoSql("d.activated_at"))} as activated_at,
        ${sql.raw(isoSql("d.last_seen_at"))} as last_seen_at, d.last_app_version,
        coalesce((select json_agg(json_build_object('product_id', p.id, 'product_name', p.name,
            'activated_at', ${sql.raw(isoSql("da.activated_at"))}, 'last_checked_at', ${sql.raw(isoSql("da.last_checked_at"))})
            order by p.name, p.id)
          from device_activations da join products p on p.id = da.product_id where da.device_id = d.id), '[]') as products,
        coalesce((select json_agg(json_build_object('product_id', p.id, 'product_name', p.name,
            'by', case when r.blocked_by_account_id is null then 'seller' else 'owner' end,
            'blocked_at', ${sql.raw(isoSql("r.created_at"))}) order by p.name, p.id)
          from client_policy_revocations r join products p on p.id = r.product_id
          where r.device_identifier = d.identifier
            and (r.blocked_by_account_id = d.account_id or (r.blocked_by_account_id is null
              and exists (select 1 from entitlements e where e.account_id = d.account_id and e.product_id = r.product_id)))),
          '[]') as blocked
      from devices d where d.account_id = ${accountId}
      order by d.last_seen_at desc nulls last, d.id`,
  );
}

/**
 * `device:deactivate`, and a person releasing one of their devices: frees every seat a device of the account holds;
 * its next license check takes a seat again if one is free. Another account's device is not found.
 */
export async function deactivateDevice(db: Database, accountId: number, deviceId: number) {
  return db.transaction(async (tx) => {
    const [device] = await sqlRows<{ id: number; account_id: number; identifier: string; name: string | null }>(
      tx,
      sql`select id, account_id, identifier, name from devices
        where id = ${deviceId} and account_id = ${accountId} for update`,
    );
    if (!device) throw new DomainError("not_found", "Device not found.");
    const released = await sqlRows<{ product_id: number }>(
      tx,
      sql`delete from device_activations where device_id = ${deviceId} returning product_id`,
    );
    if (released.length > 0) {
      await recordSecurityEvent(tx, {
        accountId,
        kind: "device_released",
        detail: { device: device.id, name: device.name, identifier: device.identifier, seats: released.length },
      });
    }
    return {
      id: device.id,
      account_id: device.account_id,
      device_id: device.identifier,
      released_product_ids: released.map((row) => row.product_id).sort((a, b) => a - b),
    };
  });
}

/**
 * A person blocking one of their devices from a product: the policy revocation of `policy:revoke` (its seats on the
 * product are freed and its license checks answer `device_revoked` until an operator restores it). Only a device of
 * the account, and only a product it is seated on or the account holds.
 */
export async function blockDevice(db: Database, accountId: number, deviceId: number, productId: number) {
  const [device] = await sqlRows<{ identifier: string; name: string | null; allowed: boolean }>(
    db,
    sql`select d.identifier, d.name, (exists (select 1 from device_activations da where da.device_id = d.id
          and da.product_id = ${productId}) or ${entitledSql(accountId, productId)}) as allowed
      from devices d where d.id = ${deviceId} and d.account_id = ${accountId}`,
  );
  if (!device) throw new DomainError("not_found", "Device not found.");
  if (!device.allowed) throw new DomainError("not_found", "Product not found.");
  return revokeDevice(db, productId, device.identifier, { accountId, name: device.name });
}

/**
 * A person lifting a block they made on one of their devices: its next license check takes a seat again if one is free.
 * A block the seller made (`policy:revoke`) stays: only the operator's `policy:restore` lifts it.
 */
export async function unblockDevice(db: Database, accountId: number, deviceId: number, productId: number) {
  return db.transaction(async (tx) => {
    const [lifted] = await sqlRows<{ identifier: string; name: string | null }>(
      tx,
      sql`delete from client_policy_revocations r using devices d
        where d.id = ${deviceId} and d.account_id = ${accountId} and r.device_identifier = d.identifier
          and r.product_id = ${productId} and r.blocked_by_account_id = ${accountId}
        returning d.identifier, d.name`,
    );
    if (!lifted) throw new DomainError("not_found", "That device is not blocked by this account on that product.");
    const { version } = await bumpVersion(tx);
    await recordSecurityEvent(tx, {
      accountId,
      kind: "device_unblocked",
      detail: { identifier: lifted.identifier, product: productId, name: lifted.name },
    });
    return { product_id: productId, device_id: lifted.identifier, version };
  });
}
