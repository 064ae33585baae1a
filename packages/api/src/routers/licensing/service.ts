import type { Database } from "@shelf/db";
import type { SigningKeyring } from "@shelf/server/signing/keyring";
import { sql } from "drizzle-orm";
import type { ApiKeyCaller, Caller } from "../../auth/caller";
import { DomainError, ValidationError } from "../../errors";
import { ACTIVE_ENTITLEMENT_E_SQL, BEST_ENTITLEMENT_FIRST_E_SQL, type ProductAccess } from "../../product-access";
import { recordSecurityEvent } from "../../security-log";
import { isoSql, preparedRows, sqlRows } from "../../sql-text";
import { issueCertificate } from "./certificate";
import type {
  LicenseCheckData,
  LicenseCheckInput,
  LicenseCode,
  LicenseDeviceData,
  ProductLicenseData,
} from "./schemas";

const HOUR_MS = 3_600_000;

/** Device rows and seats record a check at most this often, so that a client checking in a loop writes nothing. */
const TOUCH_INTERVAL = "interval '60 seconds'";

/** What a license check decides from, read in one statement: product, best entitlement, why not, policy. */
type LicenseState = {
  id: number;
  name: string;
  published: boolean;
  device_limit: number | null;
  bundle_id: string | null;
  grant_type: string | null;
  access_expires_at: string | null;
  updates_supported_until: string | null;
  update_window_open: boolean;
  /** The most recent lapsed entitlement when there is no live one: `revoked` or `expired`. */
  lapsed: "revoked" | "expired" | null;
  device_revoked: boolean;
  /** The device was blocked by the owner of this account (the product page), not by the seller. */
  device_blocked_by_owner: boolean;
  /** The version the client runs is a release of this product published after its updates ended. */
  version_outside_window: boolean;
  ttl_days: number;
  recheck_hours: number;
};

/**
 * $1 account, $2 product id or null, $3 bundle id or null, $4 device identifier or null, $5 app version or null.
 * By bundle id, a product the account is entitled to wins over another sharing the id. The app version's sort key is
 * a scalar subquery, computed once per statement: written as a plain call, the prepared statement's generic plan
 * called the function for every release of the product (200 releases: 2.4 ms of PostgreSQL CPU a check against
 * 0.2 ms, measured with `bench/license-sql.ts`).
 */
export const LICENSE_STATE_SQL = `
  with candidate as (
    select p.id, p.name, p.published, p.device_limit, p.delivery->'payload'->>'bundle_id' as bundle_id
    from products p
    where ($2::integer is not null and p.id = $2::integer)
      or ($2::integer is null and p.delivery->'payload'->>'bundle_id' = $3::text)
    order by exists (select 1 from entitlements e where e.account_id = $1 and e.product_id = p.id
      and ${ACTIVE_ENTITLEMENT_E_SQL}) desc, p.published desc, p.id
    limit 1
  )
  select c.id, c.name, c.published, c.device_limit, c.bundle_id,
    best.grant_type, ${isoSql("best.access_expires_at")} as access_expires_at,
    ${isoSql("best.updates_supported_until")} as updates_supported_until,
    best.updates_supported_until is null or best.updates_supported_until > now() as update_window_open,
    case when best.id is null then (
      select case when e.revoked_at is not null then 'revoked' else 'expired' end from entitlements e
      where e.account_id = $1 and e.product_id = c.id
      order by coalesce(e.revoked_at, e.access_expires_at) desc nulls last, e.id desc limit 1
    ) end as lapsed,
    $4::text is not null and exists (select 1 from client_policy_revocations r
      where r.product_id = c.id and r.device_identifier = $4::text) as device_revoked,
    $4::text is not null and exists (select 1 from client_policy_revocations r
      where r.product_id = c.id and r.device_identifier = $4::text and r.blocked_by_account_id = $1)
      as device_blocked_by_owner,
    coalesce((select r.released_at > best.updates_supported_until from releases r
      where r.product_id = c.id and r.yanked_at is null and r.version_sort = (select shelf_semver_sort_key($5::text))
      order by r.id limit 1), false) as version_outside_window,
    cp.ttl_days, cp.recheck_hours
  from candidate c
  left join lateral (
    select e.id, e.grant_type, e.access_expires_at, e.updates_supported_until from entitlements e
    where e.account_id = $1 and e.product_id = c.id and ${ACTIVE_ENTITLEMENT_E_SQL}
    order by ${BEST_ENTITLEMENT_FIRST_E_SQL} limit 1
  ) best on true
  cross join client_policy cp`;

const DEVICE_COLUMNS = (alias: string) =>
  `${alias}.id, ${alias}.identifier, ${alias}.name, ${isoSql(`${alias}.activated_at`)} as activated_at, ${isoSql(`${alias}.last_seen_at`)} as last_seen_at`;

/**
 * A device already seated on the product: its device row, and the product's seat count. The rows are written only
 * when their last record is older than the touch interval or something reported changed.
 * $1 account, $2 product, $3 device identifier, $4 app version, $5 device name, $6 key.
 */
const SEATED_DEVICE_SQL = `
  with d as (
    select id, identifier, name, activated_at, last_seen_at, last_app_version from devices
    where account_id = $1 and identifier = $3
  ), a as (
    select da.id, da.last_checked_at, da.app_version, da.api_key_id from device_activations da
    join d on da.device_id = d.id where da.account_id = $1 and da.product_id = $2
  ), touch_seat as (
    update device_activations set last_checked_at = now(), app_version = coalesce($4::text, a.app_version),
      api_key_id = $6::integer
    from a where device_activations.id = a.id and (a.last_checked_at < now() - ${TOUCH_INTERVAL}
      or a.app_version is distinct from coalesce($4::text, a.app_version) or a.api_key_id is distinct from $6::integer)
    returning 1
  ), touch_device as (
    update devices set last_seen_at = now(), last_app_version = coalesce($4::text, d.last_app_version),
      name = coalesce($5::text, d.name)
    from d where devices.id = d.id and exists (select 1 from a) and (d.last_seen_at is null
      or d.last_seen_at < now() - ${TOUCH_INTERVAL}
      or d.last_app_version is distinct from coalesce($4::text, d.last_app_version)
      or d.name is distinct from coalesce($5::text, d.name))
    returning 1
  )
  select d.id, d.identifier, coalesce($5::text, d.name) as name, ${isoSql("d.activated_at")} as activated_at,
    ${isoSql("case when exists (select 1 from touch_device) then now() else d.last_seen_at end")} as last_seen_at,
    (select count(*)::int from device_activations where account_id = $1 and product_id = $2) as used
  from d where exists (select 1 from a)`;

/** A device as hand-written queries select it (DEVICE_COLUMNS): timestamps already in ISO 8601. */
type DeviceRow = {
  id: number;
  identifier: string;
  name: string | null;
  activated_at: string | null;
  last_seen_at: string | null;
};

function deviceData(row: DeviceRow): LicenseDeviceData {
  return {
    id: row.id,
    device_id: row.identifier,
    name: row.name,
    activated_at: row.activated_at,
    last_seen_at: row.last_seen_at,
  };
}

/** The product a check names, in the caller's scope and visible to it; 404 when there is none, as for any product. */
async function licenseState(db: Database, caller: Caller, input: LicenseCheckInput): Promise<LicenseState> {
  const [state] = await preparedRows<LicenseState>(db, LICENSE_STATE_SQL, [
    caller.accountId,
    input.product_id ?? null,
    input.bundle_id ?? null,
    input.device_id ?? null,
    input.app_version ?? null,
  ]);
  if (!state || (!state.published && state.grant_type === null)) {
    throw new DomainError("not_found", input.product_id != null ? "Product not found." : "No app has this bundle id.");
  }
  if (caller.productId !== null && state.id !== caller.productId) {
    throw new DomainError("product_api_key_scope_required");
  }
  if (input.product_id != null && input.bundle_id != null && state.bundle_id !== input.bundle_id) {
    throw new ValidationError({ bundle_id: ["is not the bundle id of product_id"] });
  }
  return state;
}

const messages: Record<LicenseCode, string> = {
  valid: "Licensed.",
  not_entitled: "This account has not bought this product.",
  access_expired: "This account's access to the product has expired.",
  entitlement_revoked: "This account's access to the product was revoked (a refund or a cancelled order).",
  device_revoked: "This device was cut off from the product by the seller.",
  device_id_required: "This product limits its devices: send the device_id of this machine.",
  version_outside_update_window:
    "This version came out after the account's updates ended: use a version released while they were included.",
};

/** The same code (`device_revoked`, as the contract names it), worded for a block the account's owner made. */
const BLOCKED_BY_OWNER_MESSAGE =
  "This device was blocked from the product by the account's owner (on the product's page); the owner can unblock it on the account's devices page.";

function messageOf(code: LicenseCode, state: LicenseState): string {
  return code === "device_revoked" && state.device_blocked_by_owner ? BLOCKED_BY_OWNER_MESSAGE : messages[code];
}

function decide(state: LicenseState, deviceId: string | null | undefined): LicenseCode {
  if (state.grant_type === null) {
    if (state.lapsed === "revoked") return "entitlement_revoked";
    return state.lapsed === "expired" ? "access_expired" : "not_entitled";
  }
  if (deviceId && state.device_revoked) return "device_revoked";
  if (!deviceId && state.device_limit !== null) return "device_id_required";
  if (state.version_outside_window) return "version_outside_update_window";
  return "valid";
}

type SeatRow = DeviceRow & { seat_activated_at: string; last_checked_at: string; app_version: string | null };

/** The devices seated on a product, most recently checked first ($1 account, $2 product). */
const SEATED_DEVICES_SQL = `
  select ${DEVICE_COLUMNS("d")}, ${isoSql("da.activated_at")} as seat_activated_at,
    ${isoSql("da.last_checked_at")} as last_checked_at, da.app_version
  from device_activations da join devices d on d.id = da.device_id
  where da.account_id = $1 and da.product_id = $2
  order by da.last_checked_at desc, da.id`;

/**
 * In one statement, once the seat lock is held: the device's row (created or refreshed), and a seat for it unless the
 * product's seats are all taken ($7 the limit, null for none). $1 account, $2 product, $3 device identifier, $4 app
 * version, $5 device name, $6 key. `activated_at` is set here too: over the limit, the transaction is rolled back.
 */
const TAKE_SEAT_SQL = `
  with dev as (
    insert into devices (account_id, identifier, name, last_seen_at, last_app_version, activated_at)
    values ($1, $3, $5, now(), $4, now())
    on conflict (account_id, identifier) do update set last_seen_at = now(),
      name = coalesce(excluded.name, devices.name),
      last_app_version = coalesce(excluded.last_app_version, devices.last_app_version),
      activated_at = coalesce(devices.activated_at, excluded.activated_at)
    returning id, identifier, name, activated_at, last_seen_at
  ), seats as (
    select count(*)::int as used, coalesce(bool_or(device_id = (select id from dev)), false) as mine
    from device_activations where account_id = $1 and product_id = $2
  ), seat as (
    insert into device_activations (account_id, product_id, device_id, api_key_id, app_version)
    select $1, $2, dev.id, $6, $4 from dev, seats
    where seats.mine or $7::integer is null or seats.used < $7::integer
    on conflict (account_id, product_id, device_id) do update set last_checked_at = now(),
      api_key_id = excluded.api_key_id, app_version = coalesce(excluded.app_version, device_activations.app_version)
    returning 1
  )
  select ${DEVICE_COLUMNS("dev")}, seats.used, seats.mine, exists (select 1 from seat) as seated from dev, seats`;

/** The parameters $1 to $6 that SEATED_DEVICE_SQL and TAKE_SEAT_SQL both take: the caller's device on the product. */
function deviceParams(caller: Caller, state: LicenseState, input: LicenseCheckInput): (string | number | null)[] {
  return [
    caller.accountId,
    state.id,
    input.device_id ?? null,
    input.app_version ?? null,
    input.device_name ?? null,
    caller.type === "api_key" ? caller.keyId : null,
  ];
}

/** Raised inside the seat transaction to roll it back; answered as the 409. */
class NoFreeSeat extends Error {
  readonly devices: LicenseDeviceData[];
  constructor(devices: LicenseDeviceData[]) {
    super("Every seat is taken.");
    this.devices = devices;
  }
}

/**
 * Takes a seat for a device new to the product, under a lock on (account, product) held to the end of the
 * transaction, so that parallel first checks from many devices never take more seats than the limit; a device seated
 * meanwhile (a race with its own earlier check) keeps its seat. Over the limit: 409 with the seated devices and where
 * to manage them, and nothing is written. Prepared statements on one connection: the lock, the seat, and the list
 * when there is no seat.
 */
async function takeSeat(
  db: Database,
  caller: Caller,
  state: LicenseState,
  input: LicenseCheckInput & { device_id: string },
  manageUrl: string,
): Promise<{ device: DeviceRow; used: number }> {
  try {
    return await db.$client.begin(async (tx) => {
      await tx.unsafe(
        "select pg_advisory_xact_lock(hashtextextended($1, 0))",
        [`shelf.seats:${caller.accountId}:${state.id}`],
        {
          prepare: true,
        },
      );
      const [row] = (await tx.unsafe(TAKE_SEAT_SQL, [...deviceParams(caller, state, input), state.device_limit], {
        prepare: true,
      })) as unknown as (DeviceRow & { used: number; mine: boolean; seated: boolean })[];
      const seat = row as DeviceRow & { used: number; mine: boolean; seated: boolean };
      if (!seat.seated) {
        const devices = (await tx.unsafe(SEATED_DEVICES_SQL, [caller.accountId, state.id], {
          prepare: true,
        })) as unknown as SeatRow[];
        throw new NoFreeSeat(devices.map(deviceData));
      }
      return { device: seat, used: seat.mine ? seat.used : seat.used + 1 };
    });
  } catch (error) {
    if (!(error instanceof NoFreeSeat)) throw error;
    const limit = state.device_limit as number;
    throw new DomainError(
      "device_limit_reached",
      `${state.name} is active on ${limit} of ${limit} devices: release one to activate this one.`,
      { device_limit: limit, devices: error.devices, manage_url: manageUrl },
    );
  }
}

/** Where a person manages the devices seated on a product (the account pages). */
export function manageDevicesUrl(baseUrl: string, productId: number): string {
  return `${baseUrl}/account/devices?product=${productId}`;
}

/**
 * `POST /api/license/check`: whether the account may use the product on this device, and why, with a signed
 * certificate to trust offline until it expires. A licensed check with a `device_id` takes a seat for a device new to
 * the product (409 past the product's device limit); a seated device is always let in.
 */
export async function checkLicense(
  db: Database,
  keyring: SigningKeyring,
  caller: Caller,
  input: LicenseCheckInput,
  baseUrl: string,
): Promise<LicenseCheckData> {
  const state = await licenseState(db, caller, input);
  const code = decide(state, input.device_id);
  const now = new Date();
  let seat: { device: DeviceRow; used: number } | null = null;
  if (code === "valid" && input.device_id) {
    const [seated] = await preparedRows<DeviceRow & { used: number }>(
      db,
      SEATED_DEVICE_SQL,
      deviceParams(caller, state, input),
    );
    seat = seated
      ? { device: seated, used: seated.used }
      : await takeSeat(
          db,
          caller,
          state,
          { ...input, device_id: input.device_id },
          manageDevicesUrl(baseUrl, state.id),
        );
  }
  const certificate =
    code === "valid"
      ? await issueCertificate(keyring, {
          issuer: baseUrl,
          accountId: caller.accountId,
          productId: state.id,
          bundleId: state.bundle_id,
          deviceId: seat?.device.identifier ?? null,
          accessSource: state.grant_type,
          accessExpiresAt: state.access_expires_at,
          updatesSupportedUntil: state.updates_supported_until,
          issuedAt: now,
          ttlDays: state.ttl_days,
        })
      : null;
  return {
    product_id: state.id,
    licensed: code === "valid",
    code,
    message: messageOf(code, state),
    access_source: state.grant_type,
    access_expires_at: state.access_expires_at,
    updates_supported_until: state.updates_supported_until,
    update_window_open: state.update_window_open,
    device_limit: state.device_limit,
    devices_used: seat?.used ?? 0,
    product_name: state.name,
    bundle_id: state.bundle_id,
    device: seat ? deviceData(seat.device) : null,
    checked_at: now.toISOString(),
    recheck_after: new Date(now.getTime() + state.recheck_hours * HOUR_MS).toISOString(),
    certificate: certificate?.token ?? null,
    certificate_expires_at: certificate?.expiresAt.toISOString() ?? null,
  };
}

/** `GET /api/products/{product}/license`: the account's license of the product and the devices seated on it. */
export async function productLicense(db: Database, caller: Caller, access: ProductAccess): Promise<ProductLicenseData> {
  const [[state], seated] = await Promise.all([
    preparedRows<LicenseState>(db, LICENSE_STATE_SQL, [caller.accountId, access.id, null, null, null]),
    preparedRows<SeatRow>(db, SEATED_DEVICES_SQL, [caller.accountId, access.id]),
  ]);
  const license = state as LicenseState;
  // Without a device in question, a licensed account's state is `valid` even when the product limits devices.
  const code = license.grant_type === null ? decide(license, null) : "valid";
  return {
    license: {
      product_id: access.id,
      licensed: code === "valid",
      code,
      message: messageOf(code, license),
      access_source: license.grant_type,
      access_expires_at: license.access_expires_at,
      updates_supported_until: license.updates_supported_until,
      update_window_open: license.update_window_open,
      device_limit: license.device_limit,
      devices_used: seated.length,
      activations: seated.map((row) => ({
        device: deviceData(row),
        activated_at: row.seat_activated_at,
        last_checked_at: row.last_checked_at,
        app_version: row.app_version,
      })),
    },
  };
}

/**
 * `POST /api/products/{product}/license/device/revoke`: a product key gives up its device. The product's seats this
 * key checked last are released and the key is revoked, together.
 */
export async function releaseDeviceKey(db: Database, caller: ApiKeyCaller, productId: number) {
  return db.transaction(async (tx) => {
    const released = await sqlRows<DeviceRow>(
      tx,
      sql`with freed as (
          delete from device_activations where account_id = ${caller.accountId} and product_id = ${productId}
            and api_key_id = ${caller.keyId}
          returning device_id
        )
        select ${sql.raw(DEVICE_COLUMNS("d"))} from devices d where d.id in (select device_id from freed) order by d.id`,
    );
    const [key] = await sqlRows<{ id: number; prefix: string; revoked_at: string }>(
      tx,
      sql`update api_keys set revoked_at = coalesce(revoked_at, now())
        where id = ${caller.keyId} and account_id = ${caller.accountId}
        returning id, prefix, ${sql.raw(isoSql("revoked_at"))} as revoked_at`,
    );
    if (!key) throw new DomainError("invalid_api_key");
    for (const device of released) {
      await recordSecurityEvent(tx, {
        accountId: caller.accountId,
        kind: "device_released",
        detail: { device: device.id, name: device.name, identifier: device.identifier, product: productId },
      });
    }
    await recordSecurityEvent(tx, {
      accountId: caller.accountId,
      kind: "key_revoked",
      detail: { key: key.id, prefix: key.prefix, reason: "device_released" },
    });
    return { released: released.map(deviceData), key };
  });
}
