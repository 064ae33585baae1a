import type { Database } from "@shelf/db";
import { releaseChannels } from "@shelf/db/enums";
import { NEWEST_VERSION_FIRST_SQL, newestVersionFirstSql } from "../../catalog/channels";
import { DomainError } from "../../errors";
import { isoSql, preparedRows } from "../../sql-text";
import type { DownloadPipelineData, PublicDisclosureData } from "./schemas";

type PipelineRow = {
  channel: (typeof releaseChannels)[number];
  product_id: number;
  slug: string | null;
  name: string;
  release_id: number;
  version: string;
  build: string | null;
  released_at: string;
  release_platform: string | null;
  product_platforms: string[];
  critical: boolean;
  artifact: boolean;
  signature: boolean;
  notes_en: boolean;
  notes_ko: boolean;
  min_os_version: boolean;
};

/** The newest release (semver) of every published product on each channel it was published on, not yanked. */
const PIPELINE_SQL = `
  select distinct on (r.channel, p.id) r.channel, p.id as product_id, p.slug, p.name, r.id as release_id, r.version,
    r.build, ${isoSql("r.released_at")} as released_at, r.platform as release_platform,
    p.platforms as product_platforms, r.critical, r.artifact_key is not null as artifact,
    r.artifact_ed_signature is not null as signature, coalesce(r.notes_en, r.notes) is not null as notes_en,
    r.notes_ko is not null as notes_ko, r.min_os_version is not null as min_os_version
  from releases r join products p on p.id = r.product_id
  where p.published and r.yanked_at is null
  order by r.channel, p.id, ${newestVersionFirstSql("r")}`;

/**
 * `GET /api/downloads/pipeline`: per channel, the newest release of every published product with the checklist
 * apps depend on, the platforms served, and how many are ready.
 */
export async function downloadPipeline(db: Database): Promise<DownloadPipelineData> {
  const rows = await preparedRows<PipelineRow>(db, PIPELINE_SQL, []);
  return {
    channels: releaseChannels.map((channel) => {
      const products = rows
        .filter((row) => row.channel === channel)
        .sort((a, b) => a.name.localeCompare(b.name) || a.product_id - b.product_id)
        .map((row) => {
          const checklist = {
            artifact: row.artifact,
            signature: row.signature,
            notes_en: row.notes_en,
            notes_ko: row.notes_ko,
            min_os_version: row.min_os_version,
          };
          return {
            product_id: row.product_id,
            slug: row.slug,
            name: row.name,
            release_id: row.release_id,
            version: row.version,
            build: row.build,
            released_at: row.released_at,
            platforms: row.release_platform ? [row.release_platform] : row.product_platforms,
            critical: row.critical,
            checklist,
            ready: Object.values(checklist).every(Boolean),
          };
        });
      return {
        channel,
        products,
        platforms: [...new Set(products.flatMap((product) => product.platforms))].sort(),
        ready: products.filter((product) => product.ready).length,
        total: products.length,
      };
    }),
  };
}

const LINEAGES_SQL = `
  select l.slug, l.name, l.description,
    (select count(*)::int from products p where p.lineage_id = l.id and p.published) as product_count
  from lineages l where l.active order by l.position, l.name, l.id`;

/** `GET /api/lineages`: the active lineages, with how many published products each has. */
export async function listLineages(db: Database) {
  return {
    lineages: await preparedRows<{ slug: string; name: string; description: string | null; product_count: number }>(
      db,
      LINEAGES_SQL,
      [],
    ),
  };
}

const LINEAGE_SQL = `
  select l.slug, l.name, l.description,
    coalesce((select json_agg(json_build_object('id', p.id, 'slug', p.slug, 'name', p.name, 'kind', p.kind,
        'description', p.description, 'unit_price_cents', p.unit_price_cents, 'list_price_cents', p.list_price_cents,
        'currency', p.currency, 'platforms', to_json(p.platforms), 'latest_version', r.version,
        'released_at', ${isoSql("r.released_at")}) order by p.name, p.id)
      from products p
      left join lateral (select version, released_at from releases
        where product_id = p.id and channel = 'stable' and yanked_at is null
        order by ${NEWEST_VERSION_FIRST_SQL} limit 1) r on true
      where p.lineage_id = l.id and p.published), '[]') as products
  from lineages l where l.slug = $1 and l.active`;

/** `GET /api/lineages/{slug}`: one active lineage and its published products; 404 for any other slug. */
export async function getLineage(db: Database, slug: string) {
  const [lineage] = await preparedRows<{ slug: string; name: string; description: string | null; products: never[] }>(
    db,
    LINEAGE_SQL,
    [slug],
  );
  if (!lineage) throw new DomainError("not_found", "No such lineage.");
  return { lineage };
}

/** `GET /api/public/disclosure`: as configured; 404 when the deployment publishes none. */
export function publicDisclosure(disclosure: PublicDisclosureData | undefined): PublicDisclosureData {
  if (!disclosure) {
    throw new DomainError("not_found", "This deployment publishes no business disclosure (SHELF_DISCLOSURE_FILE).");
  }
  return disclosure;
}
