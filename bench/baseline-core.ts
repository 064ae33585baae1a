import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";
import type postgres from "postgres";

/**
 * The baseline's work, apart from its HTTP server: the key lookup and the answers of each scenario, on a postgres.js
 * pool. `bench/baseline-server.ts` serves them over node:http; `bench/edge-paired.ts` calls them in the same process
 * as the API's edge, to compare the two without sockets. None of the project's code.
 */
const KEY_SQL = `select id, account_id, product_id, abilities from api_keys
  where hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())`;

const NO_DELIVERY =
  '{"schema_version":1,"strategy":"manual","payload":{"artifact":null,"root":null,"skill_manifest":null,' +
  '"vsix_path":null,"extension_id":null,"app_path":null,"bundle_id":null,"binary_path":null,"executable_name":null},' +
  '"targets":[],"dependencies":[],"launch":{"kind":"none"},"requires_confirmation":false,"compatibility":true}';
const texts = (jsonb: string) => `to_json(array(select jsonb_array_elements_text(${jsonb})))`;
const field = (key: string) => `coalesce(pd->'payload'->'${key}', 'null') as ${key}`;

const LIBRARY_SQL = `
  select '{"items":[' || coalesce(string_agg(item::text, ',' order by name, id), '') || ']}' as body
  from (
    select p.name, p.id, row_to_json(i) as item
    from (
      select distinct on (product_id) product_id, grant_type, updates_supported_until from entitlements
      where account_id = $1 and revoked_at is null and (access_expires_at is null or access_expires_at > now())
        and ($2::integer is null or product_id = $2::integer)
      order by product_id, access_expires_at is null desc, access_expires_at desc,
        updates_supported_until is null desc, updates_supported_until desc, id
    ) e
    join products p on p.id = e.product_id
    left join lateral (select artifact_sha256, artifact_size, released_at from releases
      where product_id = p.id and channel = 'stable' and yanked_at is null
      order by version_sort collate "C" desc nulls last, released_at desc, id desc limit 1) r on true
    left join setup_progress sp on sp.account_id = $1 and sp.product_id = p.id
    cross join lateral (select p.delivery as pd, coalesce(jsonb_array_length(p.manual->'install_steps'), 0) as total,
      r.released_at is not null and r.artifact_sha256 is not null
        and (e.updates_supported_until is null or r.released_at <= e.updates_supported_until) as ok) v
    cross join lateral (select array(select s from unnest(sp.completed_step_indexes) s where s < v.total order by s) as done) st
    cross join lateral (select
      e.grant_type as access_source, p.thumbnail_html, p.hero_path, p.hero_alt,
      (select row_to_json(x) from (select p.id, p.name,
        case p.kind when 'app' then 'App' when 'skill' then 'Agent skill' when 'extension' then 'Extension'
          when 'tool' then 'Command-line tool' when 'template' then 'Template' when 'course' then 'Course'
          else upper(left(p.kind, 1)) || substr(p.kind, 2) end as type_label,
        p.description,
        case when pd is null then '${NO_DELIVERY}'::json else (select row_to_json(y) from (select
          pd->'schema_version' as schema_version, pd->'strategy' as strategy,
          (select row_to_json(z) from (select ${["artifact", "root", "skill_manifest", "vsix_path", "extension_id", "app_path", "bundle_id", "binary_path", "executable_name"].map(field).join(", ")}) z) as payload,
          ${texts("pd->'targets'")} as targets,
          coalesce((select array_to_json(array_agg(j order by n)) from jsonb_array_elements(pd->'dependencies') with ordinality q(dep, n),
            lateral (select row_to_json(w) as j from (select dep->'kind' as kind, dep->'name' as name,
              dep->'version_constraint' as version_constraint, ${texts("dep->'architectures'")} as architectures,
              dep->'bundle_id' as bundle_id) w) jj), '[]') as dependencies,
          (select row_to_json(l) from (select pd->'launch'->'kind' as kind) l) as launch,
          pd->'requires_confirmation' as requires_confirmation, pd->'compatibility' as compatibility) y) end as delivery,
        (select row_to_json(m) from (select p.manual->'summary' as summary, ${texts("p.manual->'requirements'")} as requirements,
          ${texts("p.manual->'install_steps'")} as install_steps, ${texts("p.manual->'verification_steps'")} as verification_steps,
          ${texts("p.manual->'troubleshooting'")} as troubleshooting) m where p.manual is not null) as manual,
        coalesce((select array_to_json(array_agg(row_to_json(ox) order by o.position, o.id)) from product_setup_outputs o,
          lateral (select o.id, o.title, o.category_label, o.summary, o.prompt, o.usage_guide, o.action_url) ox
          where o.product_id = p.id), '[]') as outputs,
        coalesce((select array_to_json(array_agg(row_to_json(ax) order by a.position, a.id)) from product_install_assets a,
          lateral (select a.platform, a.label, a.path, $3 || '/api/products/' || p.id || '/content-assets/' || a.url_path
            as download_url) ax
          where a.product_id = p.id), '[]') as install_assets,
        p.runtime, to_json(p.platforms) as platforms) x) as product,
      (select row_to_json(s) from (select to_json(st.done) as completed_step_indexes, cardinality(st.done) as completed_count,
        v.total as total_count, case when v.total = 0 then 0 else cardinality(st.done) * 100 / v.total end as progress_percent,
        v.total > 0 and cardinality(st.done) >= v.total as completed,
        case when v.total > 0 and cardinality(st.done) >= v.total
          then to_char(sp.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end as completed_at) s) as setup_progress,
      (select row_to_json(ms) from (select ms.id, $1::integer as user_id, p.id as product_id, ms.name, ms.enabled,
        p.name as product_name, coalesce((select array_to_json(array_agg(row_to_json(tx) order by t.id)) from mcp_tools t,
          lateral (select t.id, t.mcp_server_id, p.id as product_id, t.name, t.enabled) tx where t.mcp_server_id = ms.id), '[]') as tools
        from mcp_servers ms where ms.account_id = $1 and ms.product_id = p.id) ms) as mcp_server,
      (select row_to_json(b) from (select v.ok as available, r.artifact_sha256 as sha256, r.artifact_size as size,
        case when v.ok then $3 || '/api/products/' || p.id || '/bundle' end as download_url) b where r.released_at is not null) as bundle
    ) i
  ) items`;

/** ISO 8601 text of a timestamptz column, as the licensing answers carry it. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const ACTIVE = "e.revoked_at is null and (e.access_expires_at is null or e.access_expires_at > now())";
const BEST =
  "e.access_expires_at is null desc, e.access_expires_at desc, e.updates_supported_until is null desc, e.updates_supported_until desc, e.id";

// The license check's statements: $1 account, $2 product, $3 bundle id, $4 device, $5 app version.
export const LICENSE_STATE_SQL = `
  with candidate as (
    select p.id, p.name, p.published, p.device_limit, p.delivery->'payload'->>'bundle_id' as bundle_id
    from products p
    where ($2::integer is not null and p.id = $2::integer)
      or ($2::integer is null and p.delivery->'payload'->>'bundle_id' = $3::text)
    order by exists (select 1 from entitlements e where e.account_id = $1 and e.product_id = p.id and ${ACTIVE}) desc,
      p.published desc, p.id
    limit 1
  )
  select c.id, c.name, c.published, c.device_limit, c.bundle_id, best.grant_type,
    ${iso("best.access_expires_at")} as access_expires_at, ${iso("best.updates_supported_until")} as updates_supported_until,
    best.updates_supported_until is null or best.updates_supported_until > now() as update_window_open,
    case when best.id is null then (
      select case when e.revoked_at is not null then 'revoked' else 'expired' end from entitlements e
      where e.account_id = $1 and e.product_id = c.id
      order by coalesce(e.revoked_at, e.access_expires_at) desc nulls last, e.id desc limit 1) end as lapsed,
    $4::text is not null and exists (select 1 from client_policy_revocations r
      where r.product_id = c.id and r.device_identifier = $4::text) as device_revoked,
    coalesce((select r.released_at > best.updates_supported_until from releases r
      where r.product_id = c.id and r.yanked_at is null and r.version_sort = (select shelf_semver_sort_key($5::text))
      order by r.id limit 1), false) as version_outside_window,
    cp.ttl_days, cp.recheck_hours
  from candidate c
  left join lateral (select e.id, e.grant_type, e.access_expires_at, e.updates_supported_until from entitlements e
    where e.account_id = $1 and e.product_id = c.id and ${ACTIVE} order by ${BEST} limit 1) best on true
  cross join client_policy cp`;

const SEATED_SQL = `
  with d as (
    select id, identifier, name, activated_at, last_seen_at, last_app_version from devices
    where account_id = $1 and identifier = $3
  ), a as (
    select da.id, da.last_checked_at, da.app_version, da.api_key_id from device_activations da
    join d on da.device_id = d.id where da.account_id = $1 and da.product_id = $2
  ), touch_seat as (
    update device_activations set last_checked_at = now(), app_version = coalesce($4::text, a.app_version),
      api_key_id = $6::integer
    from a where device_activations.id = a.id and (a.last_checked_at < now() - interval '60 seconds'
      or a.app_version is distinct from coalesce($4::text, a.app_version) or a.api_key_id is distinct from $6::integer)
    returning 1
  ), touch_device as (
    update devices set last_seen_at = now(), last_app_version = coalesce($4::text, d.last_app_version),
      name = coalesce($5::text, d.name)
    from d where devices.id = d.id and exists (select 1 from a) and (d.last_seen_at is null
      or d.last_seen_at < now() - interval '60 seconds'
      or d.last_app_version is distinct from coalesce($4::text, d.last_app_version)
      or d.name is distinct from coalesce($5::text, d.name))
    returning 1
  )
  select d.id, d.identifier, coalesce($5::text, d.name) as name, ${iso("d.activated_at")} as activated_at,
    ${iso("case when exists (select 1 from touch_device) then now() else d.last_seen_at end")} as last_seen_at,
    (select count(*)::int from device_activations where account_id = $1 and product_id = $2) as used
  from d where exists (select 1 from a)`;

// The usage upload in one statement: $1 account, $2 key product, $3 key, $4-$8 the days as parallel arrays (index,
// product, date, launches, commands). A day sent again with the same figures is left as it is (no new row version).
// Measured against a JSON document of records (jsonb_to_recordset) and against rewriting every day: bench/usage-sql.ts.
const USAGE_SQL = `
  with input as (
    select * from unnest($4::int[], $5::int[], $6::date[], $7::int[], $8::jsonb[])
      as u(n, product_id, usage_date, launches, commands)
  ), bad as (
    select i.n from input i
    where ($2::integer is not null and i.product_id <> $2::integer)
      or not exists (select 1 from entitlements e where e.account_id = $1 and e.product_id = i.product_id and ${ACTIVE})
  ), stored as (
    insert into device_usage (account_id, product_id, api_key_id, usage_date, launches, commands)
    select $1, i.product_id, $3, i.usage_date, i.launches, i.commands from input i where not exists (select 1 from bad)
    on conflict (account_id, product_id, api_key_id, usage_date)
      do update set launches = excluded.launches, commands = excluded.commands, updated_at = now()
      where (device_usage.launches, device_usage.commands) is distinct from (excluded.launches, excluded.commands)
  )
  select coalesce((select array_agg(n order by n) from bad), '{}') as bad,
    case when exists (select 1 from bad) then 0 else (select count(*)::int from input) end as stored`;

const POLICY_SQL = `
  select cp.min_client_version, cp.ttl_days, cp.recheck_hours, cp.version,
    coalesce((select json_agg(json_build_object('product_id', r.product_id, 'device_id', r.device_identifier)
        order by r.product_id, r.device_identifier)
      from client_policy_revocations r
      where ($2::integer is null or r.product_id = $2::integer)
        and exists (select 1 from devices d where d.account_id = $1 and d.identifier = r.device_identifier)), '[]') as revoked
  from client_policy cp`;

/** The baseline's own Ed25519 key: it signs what the API signs, with the same algorithm. */
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const kid = createHash("sha256")
  .update(`{"crv":"Ed25519","kty":"OKP","x":"${publicKey.export({ format: "jwk" }).x}"}`)
  .digest("base64url");
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function jwt(claims: Record<string, unknown>): string {
  const input = `${b64url({ alg: "EdDSA", kid, typ: "license+jwt" })}.${b64url(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString("base64url")}`;
}

export type Day = {
  product_id: number;
  usage_date: string;
  launches: number;
  commands?: Record<string, number> | null;
};

export type Key = { id: number; account_id: number; product_id: number | null; abilities: string[] };

const messages: Record<string, string> = {
  valid: "Licensed.",
  not_entitled: "This account has not bought this product.",
  access_expired: "This account's access to the product has expired.",
  entitlement_revoked: "This account's access to the product was revoked (a refund or a cancelled order).",
  device_revoked: "This device was cut off from the product by the seller.",
  device_id_required: "This product limits its devices: send the device_id of this machine.",
  version_outside_update_window:
    "This version came out after the account's updates ended: use a version released while they were included.",
};

/** The license's code for the account's state of the product and this device. */
function licenseCode(state: postgres.Row, deviceId: string | null): string {
  if (state.grant_type === null) {
    return state.lapsed === "revoked"
      ? "entitlement_revoked"
      : state.lapsed === "expired"
        ? "access_expired"
        : "not_entitled";
  }
  if (deviceId && state.device_revoked) return "device_revoked";
  if (!deviceId && state.device_limit !== null) return "device_id_required";
  return state.version_outside_window ? "version_outside_update_window" : "valid";
}

/** Seats a device not seated yet, under the account and product's lock; throws when every seat is taken. */
function takeSeat(sql: postgres.Sql, key: Key, state: postgres.Row, deviceId: string, appVersion: string | null) {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`shelf.seats:${key.account_id}:${state.id}`}, 0))`;
    const [device] = await tx`insert into devices (account_id, identifier, name, last_seen_at, last_app_version)
        values (${key.account_id}, ${deviceId}, null, now(), ${appVersion})
        on conflict (account_id, identifier) do update set last_seen_at = now() returning id`;
    const [seats] = await tx`select count(*)::int as used, coalesce(bool_or(device_id = ${device?.id}), false) as mine
        from device_activations where account_id = ${key.account_id} and product_id = ${state.id}`;
    if (!seats?.mine && state.device_limit !== null && seats?.used >= state.device_limit) throw new Error("limit");
    await tx`insert into device_activations (account_id, product_id, device_id, api_key_id, app_version)
        values (${key.account_id}, ${state.id}, ${device?.id}, ${key.id}, ${appVersion})
        on conflict (account_id, product_id, device_id) do update set last_checked_at = now()`;
    const [row] = await tx.unsafe(
      `update devices set activated_at = coalesce(activated_at, now()) where id = $1
          returning id, identifier, name, ${iso("activated_at")} as activated_at, ${iso("last_seen_at")} as last_seen_at`,
      [device?.id],
    );
    return { ...row, used: seats?.mine ? seats.used : (seats?.used ?? 0) + 1 };
  });
}

/** A usage upload's shape: consent given or not, 1 to 200 days, one a product and date, launches within bounds. */
function validUsage(consent: unknown, days: Day[]): boolean {
  return (
    typeof consent === "boolean" &&
    Array.isArray(days) &&
    days.length >= 1 &&
    days.length <= 200 &&
    days.every(
      (day) =>
        Number.isInteger(day.product_id) &&
        /^\d{4}-\d{2}-\d{2}$/.test(day.usage_date) &&
        Number.isInteger(day.launches) &&
        day.launches >= 0 &&
        day.launches <= 1_000_000,
    ) &&
    new Set(days.map((day) => `${day.product_id}:${day.usage_date}`)).size === days.length
  );
}

export type Baseline = ReturnType<typeof createBaseline>;

export function createBaseline(sql: postgres.Sql, baseUrl: string) {
  /** The key of a bearer token, if it is live. */
  async function keyOf(authorization: string | undefined): Promise<Key | undefined> {
    const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    if (!token) return undefined;
    const [key] = await sql.unsafe(KEY_SQL, [createHash("sha256").update(token).digest("hex")], { prepare: true });
    return key as Key | undefined;
  }

  async function library(key: Key): Promise<string> {
    const [row] = await sql.unsafe(LIBRARY_SQL, [key.account_id, key.product_id, baseUrl], { prepare: true });
    return row?.body as string;
  }

  async function licenseCheck(key: Key, input: Record<string, string | number | undefined>) {
    const deviceId = (input.device_id as string | undefined) ?? null;
    const appVersion = (input.app_version as string | undefined) ?? null;
    const [state] = await sql.unsafe(
      LICENSE_STATE_SQL,
      [
        key.account_id,
        (input.product_id as number | undefined) ?? null,
        (input.bundle_id as string) ?? null,
        deviceId,
        appVersion,
      ],
      { prepare: true },
    );
    if (!state) return { status: 404, body: { message: "Product not found.", error: "not_found" } };
    const code = licenseCode(state, deviceId);
    let seat: Record<string, unknown> | null = null;
    if (code === "valid" && deviceId) {
      const [seated] = await sql.unsafe(SEATED_SQL, [key.account_id, state.id, deviceId, appVersion, null, key.id], {
        prepare: true,
      });
      seat = seated ?? (await takeSeat(sql, key, state, deviceId, appVersion));
    }
    const now = new Date();
    const exp = Math.floor(
      Math.min(
        now.getTime() + state.ttl_days * 86_400_000,
        state.access_expires_at ? Date.parse(state.access_expires_at) : Number.POSITIVE_INFINITY,
      ) / 1000,
    );
    const certificate =
      code === "valid"
        ? jwt({
            aud: `product:${state.id}`,
            account_id: key.account_id,
            product_id: state.id,
            bundle_id: state.bundle_id,
            device_id: seat?.identifier ?? null,
            access_source: state.grant_type,
            access_expires_at: state.access_expires_at,
            updates_supported_until: state.updates_supported_until,
            iss: baseUrl,
            sub: `account:${key.account_id}`,
            jti: randomUUID(),
            iat: Math.floor(now.getTime() / 1000),
            exp,
          })
        : null;
    return {
      status: 200,
      body: {
        product_id: state.id,
        licensed: code === "valid",
        code,
        message: messages[code],
        access_source: state.grant_type,
        access_expires_at: state.access_expires_at,
        updates_supported_until: state.updates_supported_until,
        update_window_open: state.update_window_open,
        device_limit: state.device_limit,
        devices_used: seat?.used ?? 0,
        product_name: state.name,
        bundle_id: state.bundle_id,
        device: seat
          ? {
              id: seat.id,
              device_id: seat.identifier,
              name: seat.name,
              activated_at: seat.activated_at,
              last_seen_at: seat.last_seen_at,
            }
          : null,
        checked_at: now.toISOString(),
        recheck_after: new Date(now.getTime() + state.recheck_hours * 3_600_000).toISOString(),
        certificate,
        certificate_expires_at: certificate ? new Date(exp * 1000).toISOString() : null,
      },
    };
  }

  async function usage(key: Key, input: { consent?: unknown; days?: Day[] }) {
    const days = input.days ?? [];
    if (!validUsage(input.consent, days))
      return { status: 422, body: { message: "The given data was invalid.", errors: {} } };
    if (!input.consent) return { status: 200, body: { consent: false, stored: 0 } };
    const [result] = await sql.unsafe(
      USAGE_SQL,
      [
        key.account_id,
        key.product_id,
        key.id,
        days.map((_, n) => n),
        days.map((day) => day.product_id),
        days.map((day) => day.usage_date),
        days.map((day) => day.launches),
        days.map((day) => (day.commands ? JSON.stringify(day.commands) : null)),
      ] as never[],
      { prepare: true },
    );
    if (result?.bad.length) return { status: 422, body: { message: "The given data was invalid.", errors: {} } };
    return { status: 200, body: { consent: true, stored: result?.stored } };
  }

  async function clientConfig(key: Key) {
    const [row] = await sql.unsafe(POLICY_SQL, [key.account_id, key.product_id], { prepare: true });
    const policy = row as postgres.Row;
    const signedAt = new Date().toISOString();
    const revoked = (policy.revoked as { product_id: number; device_id: string }[]).map((entry) => ({
      device_id: entry.device_id,
      product_id: entry.product_id,
    }));
    // RFC 8785 for this fixed shape: keys in code-unit order, no spaces, the numbers are integers.
    const canonical = JSON.stringify({
      kid,
      min_client_version: policy.min_client_version,
      policy: { recheck_hours: policy.recheck_hours, ttl_days: policy.ttl_days },
      revoked,
      signed_at: signedAt,
      version: policy.version,
    });
    return {
      status: 200,
      body: {
        min_client_version: policy.min_client_version,
        revoked: policy.revoked,
        policy: { ttl_days: policy.ttl_days, recheck_hours: policy.recheck_hours },
        signed_at: signedAt,
        version: policy.version,
        kid,
        signature: sign(null, Buffer.from(canonical), privateKey).toString("base64url"),
      },
    };
  }

  return { keyOf, library, licenseCheck, usage, clientConfig };
}
