import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { type AccountAbility, defaultAbilities } from "../../abilities";
import type { ApiKeyCaller, Caller } from "../../auth/caller";
import { createApiKey, revokeApiKey } from "../../auth/key-issuing";
import { DomainError, type FieldErrors, ValidationError } from "../../errors";
import { ACTIVE_ENTITLEMENT_E_SQL, BEST_ENTITLEMENT_FIRST_E_SQL, findProductAccess } from "../../product-access";
import { isoSql, preparedRows, sqlRows } from "../../sql-text";
import type { DeviceEntitlementsData, InstallRecordInput, UsageInput } from "./schemas";

const LIVE_KEY_K_SQL = "k.revoked_at is null and (k.expires_at is null or k.expires_at > now())";

/**
 * The products the account holds now (its best live entitlement of each), in the key's scope: $1 account, $2 the
 * key's product or null, $3 the key.
 */
const HELD_PRODUCTS_SQL = `
  select p.id, p.name, p.kind as type, best.grant_type as access_source,
    own.prefix is not null as has_device_key, own.prefix as license_key_prefix,
    ${isoSql("best.access_expires_at")} as access_expires_at,
    ${isoSql("best.updates_supported_until")} as updates_supported_until
  from (
    select distinct on (e.product_id) e.product_id, e.grant_type, e.access_expires_at, e.updates_supported_until
    from entitlements e
    where e.account_id = $1 and ${ACTIVE_ENTITLEMENT_E_SQL} and ($2::integer is null or e.product_id = $2::integer)
    order by e.product_id, ${BEST_ENTITLEMENT_FIRST_E_SQL}
  ) best
  join products p on p.id = best.product_id
  left join lateral (
    select k.prefix from api_keys k
    where k.account_id = $1 and k.product_id = p.id and k.kind = 'device' and ${LIVE_KEY_K_SQL}
      and (k.id = $3::integer or k.issued_by_key_id = $3::integer)
    order by k.created_at desc, k.id desc limit 1
  ) own on true
  order by p.name, p.id`;

/** Bundles the account holds through a live entitlement, with all their products ($1 account). */
const HELD_BUNDLES_SQL = `
  select b.id, b.slug, b.name,
    coalesce(array_agg(bp.product_id order by bp.product_id) filter (where bp.product_id is not null), '{}') as product_ids,
    coalesce(json_agg(json_build_object('id', p.id, 'name', p.name) order by p.id) filter (where p.id is not null), '[]')
      as products
  from bundles b
  left join bundle_products bp on bp.bundle_id = b.id
  left join products p on p.id = bp.product_id
  where exists (select 1 from entitlements e where e.account_id = $1 and e.bundle_id = b.id and ${ACTIVE_ENTITLEMENT_E_SQL})
  group by b.id
  order by b.name, b.id`;

/** The account's subscriptions that have not run out ($1 account). */
const LIVE_SUBSCRIPTIONS_SQL = `
  select s.id, s.product_id, s.is_pass, s.status, s.tier, ${isoSql("s.starts_at")} as starts_at,
    ${isoSql("s.ends_at")} as ends_at
  from subscriptions s
  where s.account_id = $1 and s.status <> 'expired'
    and (s.ends_at is null or s.ends_at + make_interval(days => s.grace_days) > now())
  order by s.starts_at, s.id`;

/** The device this key last checked a license from ($1 key), and the account ($2). */
const DEVICE_AND_USER_SQL = `
  select a.id as user_id, a.email, a.name as user_name, d.id as device_id, d.name as device_name,
    ${isoSql("d.activated_at")} as activated_at
  from accounts a
  left join lateral (
    select dv.id, dv.name, dv.activated_at from device_activations da join devices dv on dv.id = da.device_id
    where da.api_key_id = $1::integer and da.account_id = a.id
    order by da.last_checked_at desc, da.id desc limit 1
  ) d on true
  where a.id = $2`;

const keyOf = (caller: Caller) => (caller.type === "api_key" ? caller.keyId : null);

/** `GET /api/device/entitlements`: what this device's account holds, and which of it this device has keys for. */
export async function deviceEntitlements(db: Database, caller: Caller): Promise<DeviceEntitlementsData> {
  const [products, subscriptions, bundles, [who]] = await Promise.all([
    preparedRows<DeviceEntitlementsData["products"][number]>(db, HELD_PRODUCTS_SQL, [
      caller.accountId,
      caller.productId,
      keyOf(caller),
    ]),
    preparedRows<DeviceEntitlementsData["subscriptions"][number]>(db, LIVE_SUBSCRIPTIONS_SQL, [caller.accountId]),
    heldBundles(db, caller),
    preparedRows<{
      user_id: number;
      email: string;
      user_name: string | null;
      device_id: number | null;
      device_name: string | null;
      activated_at: string | null;
    }>(db, DEVICE_AND_USER_SQL, [keyOf(caller), caller.accountId]),
  ]);
  return {
    products,
    subscriptions,
    bundles: bundles.map(({ id, name, product_ids }) => ({ id, name, product_ids })),
    device: { id: who?.device_id ?? null, name: who?.device_name ?? null, activated_at: who?.activated_at ?? null },
    user: who ? { id: who.user_id, email: who.email, name: who.user_name } : null,
  };
}

type BundleRow = {
  id: number;
  slug: string;
  name: string;
  product_ids: number[];
  products: { id: number; name: string }[];
};

/** `GET /api/bundles`: the bundles the account holds, each with its products. */
export async function heldBundles(db: Database, caller: Caller): Promise<BundleRow[]> {
  return preparedRows<BundleRow>(db, HELD_BUNDLES_SQL, [caller.accountId]);
}

/**
 * `POST /api/device/bulk-activate`: a key of this device's own for every product the account holds (in the caller's
 * scope), all or nothing. Each is a product-scoped device key with the device abilities the caller itself holds
 * (never more), issued under the same slot rule as every other key (3 live per scope; a full scope gives up the
 * least recently used key of the same client). Activating again replaces the keys this caller issued before.
 */
export async function bulkActivate(db: Database, caller: ApiKeyCaller, brand: string) {
  const products = await preparedRows<{ id: number; name: string }>(db, HELD_PRODUCTS_SQL, [
    caller.accountId,
    caller.productId,
    caller.keyId,
  ]);
  const abilities = defaultAbilities.device.filter((ability: AccountAbility) => caller.abilities.has(ability));
  return db.transaction(async (tx) => {
    const [own] = await sqlRows<{ client: string | null }>(
      tx,
      sql`select client from api_keys where id = ${caller.keyId} and account_id = ${caller.accountId}`,
    );
    const keys = [];
    // In product order, so that two activations at once take the scopes' locks in the same order.
    for (const product of [...products].sort((a, b) => a.id - b.id)) {
      await tx.execute(sql`select pg_advisory_xact_lock(${caller.accountId}, ${product.id})`);
      await tx.execute(sql`update api_keys set revoked_at = now()
        where account_id = ${caller.accountId} and product_id = ${product.id} and issued_by_key_id = ${caller.keyId}
          and revoked_at is null`);
      try {
        const { key, record } = await createApiKey(
          tx,
          {
            accountId: caller.accountId,
            productId: product.id,
            kind: "device",
            client: own?.client ?? null,
            name: `${product.name} (activated on this device)`.slice(0, 100),
            abilities,
            issuedByKeyId: caller.keyId,
          },
          brand,
        );
        keys.push({
          product_id: product.id,
          product_name: product.name,
          key,
          prefix: record.prefix,
          abilities: record.abilities,
          expires_at: record.expires_at,
        });
      } catch (error) {
        if (error instanceof DomainError && error.code === "api_key_limit_reached") {
          throw new DomainError(
            "api_key_limit_reached",
            `${product.name} (product ${product.id}) already has 3 live keys, none of them this client's device key: revoke one, then activate again. Nothing was activated.`,
            { product_id: product.id },
          );
        }
        throw error;
      }
    }
    return { keys };
  });
}

/** Installs may be reported a little ahead of the server's clock, not more. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * `POST /api/device/installs`: records that this device installed a version of a product the account holds. A
 * retried report (same key, product, version and time) is the same record.
 */
export async function recordInstall(db: Database, caller: ApiKeyCaller, input: InstallRecordInput) {
  if (caller.productId !== null && caller.productId !== input.product_id) {
    throw new DomainError("product_api_key_scope_required");
  }
  const access = await findProductAccess(db, caller.accountId, input.product_id);
  if (!access || (!access.published && !access.entitlement)) throw new DomainError("not_found", "Product not found.");
  if (!access.entitlement) throw new DomainError("product_entitlement_required");
  const installedAt = input.installed_at ? new Date(input.installed_at) : new Date();
  if (installedAt.getTime() > Date.now() + CLOCK_SKEW_MS) {
    throw new ValidationError({ installed_at: ["must not be in the future"] });
  }
  const [row] = await sqlRows<{
    id: number;
    product_id: number;
    version: string;
    bundle_id: string | null;
    installed_at: string;
    recorded_at: string;
  }>(
    db,
    sql`with inserted as (
        insert into device_installs (account_id, product_id, api_key_id, version, bundle_id, installed_at)
        values (${caller.accountId}, ${input.product_id}, ${caller.keyId}, ${input.version}, ${input.bundle_id ?? null},
          ${installedAt.toISOString()})
        on conflict (api_key_id, product_id, version, installed_at) do nothing
        returning *
      ), install as (
        select * from inserted
        union all
        select * from device_installs where api_key_id = ${caller.keyId} and product_id = ${input.product_id}
          and version = ${input.version} and installed_at = ${installedAt.toISOString()} and not exists (select 1 from inserted)
      )
      select id, product_id, version, bundle_id, ${sql.raw(isoSql("installed_at"))} as installed_at,
        ${sql.raw(isoSql("created_at"))} as recorded_at
      from install`,
  );
  return { install: row as NonNullable<typeof row> };
}

/**
 * The usage upload in one statement: every day's product is checked to be one the account holds (in the key's
 * scope) and, only when all are, every day is stored, one row per (account, product, key, date), a day uploaded
 * again with other figures overwriting the earlier ones. A day uploaded again with the same figures (a device sends
 * its last weeks each time) is left as it is: no new row version, no index entries, no WAL. The days come as
 * parallel arrays (`unnest`), which PostgreSQL reads for less CPU than a JSON document of records (measured with
 * `bench/usage-sql.ts`: 200 days, 2.05 ms with `jsonb_to_recordset` rewriting every day, 1.43 ms this way).
 * $1 account, $2 the key's product or null, $3 key, $4-$8 the days' index, product, date, launches and commands.
 */
const USAGE_SQL = `
  with input as (
    select * from unnest($4::int[], $5::int[], $6::date[], $7::int[], $8::jsonb[])
      as u(n, product_id, usage_date, launches, commands)
  ), bad as (
    select i.n from input i
    where ($2::integer is not null and i.product_id <> $2::integer)
      or not exists (select 1 from entitlements e where e.account_id = $1 and e.product_id = i.product_id
        and ${ACTIVE_ENTITLEMENT_E_SQL})
  ), stored as (
    insert into device_usage (account_id, product_id, api_key_id, usage_date, launches, commands)
    select $1, i.product_id, $3, i.usage_date, i.launches, i.commands from input i
    where not exists (select 1 from bad)
    on conflict (account_id, product_id, api_key_id, usage_date)
      do update set launches = excluded.launches, commands = excluded.commands, updated_at = now()
      where (device_usage.launches, device_usage.commands) is distinct from (excluded.launches, excluded.commands)
  )
  select coalesce((select array_agg(n order by n) from bad), '{}') as bad,
    case when exists (select 1 from bad) then 0 else (select count(*)::int from input) end as stored`;

/**
 * A PostgreSQL array literal of the values (null as NULL, everything else a quoted element): the pool sends
 * parameters as text and does not know array types.
 */
function arrayLiteral(values: readonly (string | number | null)[]): string {
  return `{${values.map((value) => (value === null ? "NULL" : `"${String(value).replace(/[\\"]/g, "\\$&")}"`)).join(",")}}`;
}

/** How far ahead of the server's UTC date a day may be (a client east of UTC is already tomorrow). */
const LATEST_DAY_OFFSET_MS = 86_400_000;

/**
 * `POST /api/device/usage`: daily launches (and command counts) per product, stored only with the person's consent.
 * A bad day (a product the account does not hold, a day in the future, the same product and day twice) rejects the
 * whole upload, and nothing is stored.
 */
export async function uploadUsage(db: Database, caller: ApiKeyCaller, input: UsageInput) {
  const errors: FieldErrors = {};
  const latest = new Date(Date.now() + LATEST_DAY_OFFSET_MS).toISOString().slice(0, 10);
  const seen = new Set<string>();
  input.days.forEach((day, index) => {
    if (day.usage_date > latest) errors[`days.${index}.usage_date`] = ["must not be in the future"];
    const pair = `${day.product_id}:${day.usage_date}`;
    if (seen.has(pair)) errors[`days.${index}`] = ["repeats a product and date given earlier in this upload"];
    seen.add(pair);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (!input.consent) return { consent: false, stored: 0 };
  const { days } = input;
  const [result] = await preparedRows<{ bad: number[]; stored: number }>(db, USAGE_SQL, [
    caller.accountId,
    caller.productId,
    caller.keyId,
    arrayLiteral(days.map((_, n) => n)),
    arrayLiteral(days.map((day) => day.product_id)),
    arrayLiteral(days.map((day) => day.usage_date)),
    arrayLiteral(days.map((day) => day.launches)),
    arrayLiteral(days.map((day) => (day.commands ? JSON.stringify(day.commands) : null))),
  ]);
  const { bad, stored } = result as { bad: number[]; stored: number };
  if (bad.length > 0) {
    throw new ValidationError(
      Object.fromEntries(bad.map((n) => [`days.${n}.product_id`, ["is not a product this account holds"]])),
    );
  }
  return { consent: true, stored };
}

/** `POST /api/cli/device/logout`: the command-line client signs out; its key stops working at once. */
export async function logout(db: Database, caller: ApiKeyCaller): Promise<void> {
  await revokeApiKey(db, caller.accountId, caller.keyId);
}
