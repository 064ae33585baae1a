import type { Database } from "@shelf/db";
import { JsonText } from "@shelf/server/json-text";
import { sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { NEWEST_VERSION_FIRST_SQL } from "../../catalog/channels";
import { emptyPayload, toDeliveryData, typeLabels } from "../../catalog/delivery-data";
import { ACTIVE_ENTITLEMENT_E_SQL, BEST_ENTITLEMENT_FIRST_E_SQL } from "../../product-access";
import { isoSql, preparedRows, sqlRows } from "../../sql-text";
import type { EndedAccessData, LibraryApiData } from "./schemas";

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** A jsonb array of strings as compact JSON (jsonb's own text has spaces). */
const stringArray = (jsonb: string) => `to_json(array(select jsonb_array_elements_text(${jsonb})))`;

const TYPE_LABEL_SQL = `case p.kind ${Object.entries(typeLabels)
  .map(([kind, label]) => `when ${literal(kind)} then ${literal(label)}`)
  .join(" ")} else upper(left(p.kind, 1)) || substr(p.kind, 2) end`;
const MANUAL_DELIVERY_SQL = `${literal(JSON.stringify(toDeliveryData(null)))}::json`;
const PAYLOAD_SQL = Object.keys(emptyPayload)
  .map((key) => `coalesce(p.delivery->'payload'->${literal(key)}, 'null') as ${key}`)
  .join(", ");

/**
 * The whole library as one JSON document, written by PostgreSQL in the contract's field order (row_to_json and
 * array_to_json write compact JSON, escaped as JSON.stringify escapes), so Node only passes text on: no rows parsed
 * into objects, nothing serialised again. One statement whatever the number of products; $1 is the account, $2 the
 * product of a product-scoped key (or null), $3 the public base URL. Each product's best live entitlement is picked
 * by DISTINCT ON; the newest stable release gives the bundle; the update window decides whether it may be
 * downloaded (the newest stable release by semver, never a yanked one). The type labels and the manual delivery come from the same constants as the rest of the API.
 */
const LIBRARY_SQL = `
  with best as (
    select distinct on (e.product_id) e.product_id, e.grant_type, e.updates_supported_until
    from entitlements e
    where e.account_id = $1 and ${ACTIVE_ENTITLEMENT_E_SQL}
      and ($2::integer is null or e.product_id = $2::integer)
    order by e.product_id, ${BEST_ENTITLEMENT_FIRST_E_SQL}
  ), items as (
    select p.name, p.id, row_to_json(item) as item
    from best
    join products p on p.id = best.product_id
    left join lateral (
      select artifact_sha256, artifact_size, released_at from releases
      where product_id = p.id and channel = 'stable' and yanked_at is null
      order by ${NEWEST_VERSION_FIRST_SQL} limit 1
    ) r on true
    left join setup_progress sp on sp.account_id = $1 and sp.product_id = p.id
    cross join lateral (
      select coalesce(jsonb_array_length(p.manual->'install_steps'), 0) as total,
        r.released_at is not null and r.artifact_sha256 is not null
          and (best.updates_supported_until is null or r.released_at <= best.updates_supported_until) as downloadable
    ) c
    cross join lateral (select array(select s from unnest(sp.completed_step_indexes) s where s < c.total order by s) as done) d
    cross join lateral (
      select best.grant_type as access_source, p.thumbnail_html, p.hero_path, p.hero_alt,
        (select row_to_json(x) from (select p.id, p.name, ${TYPE_LABEL_SQL} as type_label, p.description,
          case when p.delivery is null then ${MANUAL_DELIVERY_SQL} else (select row_to_json(dl) from (select
            p.delivery->'schema_version' as schema_version, p.delivery->'strategy' as strategy,
            (select row_to_json(pl) from (select ${PAYLOAD_SQL}) pl) as payload,
            ${stringArray("p.delivery->'targets'")} as targets,
            coalesce((select array_to_json(array_agg(dep order by o)) from jsonb_array_elements(p.delivery->'dependencies')
                with ordinality a(d, o)
              cross join lateral (select row_to_json(x) as dep from (select d->'kind' as kind, d->'name' as name,
                d->'version_constraint' as version_constraint, ${stringArray("d->'architectures'")} as architectures,
                d->'bundle_id' as bundle_id) x) deps), '[]') as dependencies,
            (select row_to_json(la) from (select p.delivery->'launch'->'kind' as kind) la) as launch,
            p.delivery->'requires_confirmation' as requires_confirmation, p.delivery->'compatibility' as compatibility
          ) dl) end as delivery,
          case when p.manual is null then null else (select row_to_json(m) from (select p.manual->'summary' as summary,
            ${stringArray("p.manual->'requirements'")} as requirements,
            ${stringArray("p.manual->'install_steps'")} as install_steps,
            ${stringArray("p.manual->'verification_steps'")} as verification_steps,
            ${stringArray("p.manual->'troubleshooting'")} as troubleshooting) m) end as manual,
          coalesce((select array_to_json(array_agg(row_to_json(ox) order by o.position, o.id))
            from product_setup_outputs o
            cross join lateral (select o.id, o.title, o.category_label, o.summary, o.prompt, o.usage_guide, o.action_url) ox
            where o.product_id = p.id), '[]') as outputs,
          coalesce((select array_to_json(array_agg(row_to_json(ax) order by a.position, a.id))
            from product_install_assets a
            cross join lateral (select a.platform, a.label, a.path,
              $3 || '/api/products/' || p.id || '/content-assets/' || a.url_path as download_url) ax
            where a.product_id = p.id), '[]') as install_assets,
          p.runtime, to_json(p.platforms) as platforms) x) as product,
        (select row_to_json(s) from (select to_json(d.done) as completed_step_indexes,
          cardinality(d.done) as completed_count, c.total as total_count,
          case when c.total = 0 then 0 else cardinality(d.done) * 100 / c.total end as progress_percent,
          c.total > 0 and cardinality(d.done) >= c.total as completed,
          case when c.total > 0 and cardinality(d.done) >= c.total then ${isoSql("sp.completed_at")} end as completed_at) s)
          as setup_progress,
        (select row_to_json(ms) from (select s.id, $1::integer as user_id, p.id as product_id, s.name, s.enabled,
            p.name as product_name,
            coalesce((select array_to_json(array_agg(row_to_json(tx) order by t.id)) from mcp_tools t
              cross join lateral (select t.id, t.mcp_server_id, p.id as product_id, t.name, t.enabled) tx
              where t.mcp_server_id = s.id), '[]') as tools
          from mcp_servers s where s.account_id = $1 and s.product_id = p.id) ms) as mcp_server,
        case when r.released_at is null then null else (select row_to_json(b) from (select c.downloadable as available,
          r.artifact_sha256 as sha256, r.artifact_size as size,
          case when c.downloadable then $3 || '/api/products/' || p.id || '/bundle' end as download_url) b) end as bundle
    ) item
  )
  select '{"items":[' || coalesce(string_agg(item::text, ',' order by name, id), '') || ']}' as body from items`;

/** The account's usable products with everything a client needs to set them up. */
export async function getLibrary(db: Database, caller: Caller, baseUrl: string): Promise<JsonText<LibraryApiData>> {
  const [row] = await preparedRows<{ body: string }>(db, LIBRARY_SQL, [caller.accountId, caller.productId, baseUrl]);
  return new JsonText((row as { body: string }).body);
}

/**
 * For each product the account held and no longer has access to (revoked or expired), its latest entitlement, by
 * product name; or only `productId`'s.
 */
export async function endedAccesses(db: Database, accountId: number, productId?: number): Promise<EndedAccessData[]> {
  return sqlRows<EndedAccessData>(
    db,
    sql`select distinct on (p.name, p.id) p.id as product_id, p.name as product_name, e.grant_type, p.purchase_url,
        ${sql.raw(isoSql("e.access_expires_at"))} as access_expires_at, ${sql.raw(isoSql("e.revoked_at"))} as revoked_at
      from entitlements e join products p on p.id = e.product_id
      where e.account_id = ${accountId} ${productId === undefined ? sql`` : sql`and e.product_id = ${productId}`}
        and not exists (select 1 from entitlements live where live.account_id = ${accountId}
          and live.product_id = e.product_id and ${sql.raw(ACTIVE_ENTITLEMENT_E_SQL.replaceAll("e.", "live."))})
      order by p.name, p.id, coalesce(e.revoked_at, e.access_expires_at) desc nulls last, e.id desc`,
  );
}

/** The account's latest entitlement to a product it no longer has access to (revoked or expired), or null. */
export async function endedAccess(db: Database, accountId: number, productId: number): Promise<EndedAccessData | null> {
  return (await endedAccesses(db, accountId, productId))[0] ?? null;
}
