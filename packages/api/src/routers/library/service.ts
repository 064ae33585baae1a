import type { Database } from "@shelf/db";
import type { Delivery, Manual } from "@shelf/db/schema";
import type { Caller } from "../../auth/caller";
import { ACTIVE_ENTITLEMENT_E_SQL, BEST_ENTITLEMENT_FIRST_E_SQL } from "../products/access";
import { setupStepCount, toDeliveryData, toSetupProgressData, typeLabel } from "../products/format";
import { bundleDownloadUrl, withinUpdateWindow } from "../products/service";
import type { LibraryApiData } from "./schemas";

type LibraryRow = {
  id: number;
  name: string;
  kind: string;
  description: string | null;
  delivery: Delivery | null;
  manual: Manual | null;
  runtime: string | null;
  platforms: string[];
  thumbnail_html: string | null;
  hero_path: string | null;
  hero_alt: string | null;
  grant_type: string;
  updates_until_ms: number | null;
  outputs: LibraryApiData["items"][number]["product"]["outputs"];
  assets: { platform: string; label: string; path: string }[];
  release_sha256: string | null;
  release_size: number | null;
  released_at_ms: number | null;
  mcp_server: {
    id: number;
    name: string;
    enabled: boolean;
    tools: { id: number; name: string; enabled: boolean }[];
  } | null;
  completed_step_indexes: number[] | null;
  completed_at_ms: number | null;
};

/**
 * The library in one SQL statement whatever the number of products. PostgreSQL picks each product's best live
 * entitlement (DISTINCT ON) and nests outputs, assets and the MCP server as JSON already in the contract's field
 * names, so Node only reads rows. $1 is the account, $2 the product of a product-scoped key (or null). The text is
 * fixed, so the server keeps it prepared.
 */
const LIBRARY_SQL = `
  with best as (
    select distinct on (e.product_id) e.product_id, e.grant_type, e.updates_supported_until
    from entitlements e
    where e.account_id = $1 and ${ACTIVE_ENTITLEMENT_E_SQL}
      and ($2::integer is null or e.product_id = $2::integer)
    order by e.product_id, ${BEST_ENTITLEMENT_FIRST_E_SQL}
  )
  select p.id, p.name, p.kind, p.description, p.delivery, p.manual, p.runtime, p.platforms,
    p.thumbnail_html, p.hero_path, p.hero_alt, best.grant_type,
    extract(epoch from best.updates_supported_until)::float8 * 1000 as updates_until_ms,
    (select coalesce(json_agg(json_build_object('id', o.id, 'title', o.title, 'category_label', o.category_label,
        'summary', o.summary, 'prompt', o.prompt, 'usage_guide', o.usage_guide, 'action_url', o.action_url)
        order by o.position, o.id), '[]')
      from product_setup_outputs o where o.product_id = p.id) as outputs,
    (select coalesce(json_agg(json_build_object('platform', a.platform, 'label', a.label, 'path', a.path)
        order by a.position, a.id), '[]')
      from product_install_assets a where a.product_id = p.id) as assets,
    r.artifact_sha256 as release_sha256, r.artifact_size::float8 as release_size,
    extract(epoch from r.released_at)::float8 * 1000 as released_at_ms,
    (select json_build_object('id', s.id, 'name', s.name, 'enabled', s.enabled, 'tools',
        (select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'enabled', t.enabled) order by t.id), '[]')
          from mcp_tools t where t.mcp_server_id = s.id))
      from mcp_servers s where s.account_id = $1 and s.product_id = p.id) as mcp_server,
    sp.completed_step_indexes, extract(epoch from sp.completed_at)::float8 * 1000 as completed_at_ms
  from best
  join products p on p.id = best.product_id
  left join lateral (
    select rel.artifact_sha256, rel.artifact_size, rel.released_at from releases rel
    where rel.product_id = p.id and rel.channel = 'stable'
    order by rel.released_at desc, rel.id desc limit 1
  ) r on true
  left join setup_progress sp on sp.account_id = $1 and sp.product_id = p.id
  order by p.name, p.id`;

/** The account's usable products with everything a client needs to set them up. */
export async function getLibrary(db: Database, caller: Caller, baseUrl: string): Promise<LibraryApiData> {
  const { accountId } = caller;
  const rows = (await db.$client.unsafe(LIBRARY_SQL, [accountId, caller.productId], {
    prepare: true,
  })) as unknown as LibraryRow[];

  return {
    items: rows.map((row) => {
      const releasedAt = row.released_at_ms === null ? null : new Date(row.released_at_ms);
      const updatesUntil = row.updates_until_ms === null ? null : new Date(row.updates_until_ms);
      const downloadable =
        releasedAt !== null && row.release_sha256 !== null && withinUpdateWindow(updatesUntil, releasedAt);
      const assetBase = `${baseUrl}/api/products/${row.id}/content-assets/`;
      return {
        access_source: row.grant_type,
        thumbnail_html: row.thumbnail_html,
        hero_path: row.hero_path,
        hero_alt: row.hero_alt,
        product: {
          id: row.id,
          name: row.name,
          type_label: typeLabel(row.kind),
          description: row.description,
          delivery: toDeliveryData(row.delivery),
          manual: row.manual ?? null,
          outputs: row.outputs,
          install_assets: row.assets.map((asset) => ({
            ...asset,
            download_url: assetBase + asset.path.split("/").map(encodeURIComponent).join("/"),
          })),
          runtime: row.runtime,
          platforms: row.platforms,
        },
        setup_progress: toSetupProgressData(
          setupStepCount(row),
          row.completed_step_indexes
            ? {
                completedStepIndexes: row.completed_step_indexes,
                completedAt: row.completed_at_ms === null ? null : new Date(row.completed_at_ms),
              }
            : undefined,
        ),
        mcp_server: row.mcp_server && {
          id: row.mcp_server.id,
          user_id: accountId,
          product_id: row.id,
          name: row.mcp_server.name,
          enabled: row.mcp_server.enabled,
          product_name: row.name,
          tools: row.mcp_server.tools.map((tool) => ({
            ...tool,
            mcp_server_id: row.mcp_server?.id as number,
            product_id: row.id,
          })),
        },
        bundle:
          releasedAt === null
            ? null
            : {
                available: downloadable,
                sha256: row.release_sha256,
                size: row.release_size,
                download_url: downloadable ? bundleDownloadUrl(baseUrl, row.id) : null,
              },
      };
    }),
  };
}
