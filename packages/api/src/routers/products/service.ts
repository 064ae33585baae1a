import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { ReleaseChannel } from "@shelf/db/enums";
import type { TextOutput } from "@shelf/server/plain";
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import semver from "semver";
import type { Caller } from "../../auth/caller";
import { NEWEST_VERSION_FIRST_SQL, offeredReleases, visibleChannels } from "../../catalog/channels";
import { toDeliveryData } from "../../catalog/delivery-data";
import { withinUpdateWindow } from "../../catalog/releases";
import { DomainError } from "../../errors";
import { perDatabase } from "../../prepared";
import { entitledSql, type ProductAccess } from "../../product-access";
import { toProductApiData } from "./format";
import type { ListProductsInput } from "./schemas";

const { products, releases } = schema;

/** Categories and tags of a product, in their display order: one relational query, no N+1. */
export const taxonomy = {
  primaryCategory: true as const,
  categories: {
    with: { category: true as const },
    orderBy: [asc(schema.productCategories.position), asc(schema.productCategories.categoryId)],
  },
  tags: { with: { tag: true as const }, orderBy: [asc(schema.productTags.position), asc(schema.productTags.tagId)] },
};

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Published products plus the unpublished ones this account can access; a product-scoped key sees its own. */
export async function listProducts(db: Database, caller: Caller, input: ListProductsInput) {
  const rows = await db.query.products.findMany({
    with: taxonomy,
    extras: (p) => ({ entitled: entitledSql(caller.accountId, p.id).as("entitled") }),
    where: (p) => {
      const conditions = [sql`(${p.published} or ${entitledSql(caller.accountId, p.id)})`];
      if (caller.productId !== null) conditions.push(eq(p.id, caller.productId));
      if (input.category_id !== undefined) {
        conditions.push(
          sql`(${p.primaryCategoryId} = ${input.category_id} or exists (select 1 from product_categories pc where pc.product_id = ${p.id} and pc.category_id = ${input.category_id}))`,
        );
      }
      if (input.tag_id !== undefined) {
        conditions.push(
          sql`exists (select 1 from product_tags pt where pt.product_id = ${p.id} and pt.tag_id = ${input.tag_id})`,
        );
      }
      if (input.q) {
        const pattern = likePattern(input.q);
        conditions.push(sql`(${p.name} ilike ${pattern} or coalesce(${p.description}, '') ilike ${pattern})`);
      }
      if (input.platform) conditions.push(sql`${input.platform} = any(${p.platforms})`);
      return and(...conditions);
    },
    orderBy: (p) => {
      switch (input.sort) {
        case "-name":
          return [desc(p.name), asc(p.id)];
        case "newest":
          return [desc(p.createdAt), desc(p.id)];
        case "oldest":
          return [asc(p.createdAt), asc(p.id)];
        case "price":
          return [asc(p.unitPriceCents), asc(p.name), asc(p.id)];
        case "-price":
          return [desc(p.unitPriceCents), asc(p.name), asc(p.id)];
        default:
          return [asc(p.name), asc(p.id)];
      }
    },
  });
  return { products: rows.map((row) => toProductApiData(row, row.entitled)) };
}

async function loadProduct(db: Database, productId: number) {
  const row = await db.query.products.findFirst({ with: taxonomy, where: (p) => eq(p.id, productId) });
  if (!row) throw new DomainError("not_found", "Product not found.");
  return row;
}

export async function getProduct(db: Database, access: ProductAccess) {
  const row = await loadProduct(db, access.id);
  return { product: toProductApiData(row, access.entitlement !== null) };
}

export async function getProductDetail(db: Database, access: ProductAccess) {
  const row = await loadProduct(db, access.id);
  return {
    product: toProductApiData(row, access.entitlement !== null),
    delivery: toDeliveryData(row.delivery),
    detail_html: row.detailHtml,
    manual: row.manual ?? null,
    runtime: row.runtime,
    platforms: row.platforms,
    hero_path: row.heroPath,
    hero_alt: row.heroAlt,
    gallery: row.gallery,
    videos: row.videos,
    usage_path: row.usagePath,
    architecture_path: row.architecturePath,
    ai_prompt_path: row.aiPromptPath,
  };
}

export async function listReleases(db: Database, productId: number) {
  const rows = await db
    .select()
    .from(releases)
    .where(and(eq(releases.productId, productId), isNull(releases.yankedAt)))
    .orderBy(sql.raw(NEWEST_VERSION_FIRST_SQL));
  return {
    releases: rows.map((release) => ({
      id: release.id,
      product_id: release.productId,
      version: release.version,
      channel: release.channel,
      notes_ko: release.notesKo,
      notes_en: release.notesEn,
      notes: release.notes,
      released_at: release.releasedAt.toISOString(),
    })),
  };
}

const newestReleaseQuery = perDatabase((db) =>
  db
    .select()
    .from(releases)
    .where(offeredReleases())
    .orderBy(sql.raw(NEWEST_VERSION_FIRST_SQL))
    .limit(1)
    .prepare("shelf_newest_release"),
);

/** The newest release (semver) a client following `channel` is offered; yanked releases never are. */
export async function newestRelease(db: Database, productId: number, channel: ReleaseChannel = "stable") {
  const [release] = await newestReleaseQuery(db).execute({ productId, channels: visibleChannels(channel) });
  return release ?? null;
}

export function bundleDownloadUrl(baseUrl: string, productId: number, channel: ReleaseChannel = "stable"): string {
  const url = `${baseUrl}/api/products/${productId}/bundle`;
  return channel === "stable" ? url : `${url}?channel=${channel}`;
}

export async function checkForUpdate(
  db: Database,
  access: ProductAccess,
  input: { version?: string; channel?: ReleaseChannel },
  baseUrl: string,
) {
  const clientVersion = input.version;
  const release = await newestRelease(db, access.id, input.channel);
  const client = clientVersion ? semver.coerce(clientVersion, { includePrerelease: true }) : null;
  const current = release ? semver.coerce(release.version, { includePrerelease: true }) : null;
  const updateAvailable = release !== null && (client === null || current === null || semver.gt(current, client));
  const hasArtifact = release?.artifactKey != null;
  return {
    update: {
      product_id: access.id,
      current_version: release?.version ?? clientVersion ?? "",
      released_at: release?.releasedAt.toISOString() ?? null,
      changelog: release ? (release.notes ?? release.notesEn ?? release.notesKo) : null,
      source_ref: release?.sourceRef ?? null,
      artifact_sha256: release?.artifactSha256 ?? null,
      artifact_size: release?.artifactSize ?? null,
      update_available: updateAvailable,
      download_allowed:
        release !== null &&
        hasArtifact &&
        withinUpdateWindow(access.entitlement?.updatesSupportedUntil ?? null, release.releasedAt),
      download_url: bundleDownloadUrl(baseUrl, access.id, input.channel),
    },
  };
}

/** Content styles of the products the key can see, for the HTML fragments the API returns. */
export async function productContentCss(db: Database, caller: Caller): Promise<TextOutput> {
  const rows = await db
    .select({ id: products.id, css: products.contentCss })
    .from(products)
    .where(
      and(
        sql`${products.contentCss} is not null`,
        sql`(${products.published} or ${entitledSql(caller.accountId, products.id)})`,
        caller.productId === null ? undefined : eq(products.id, caller.productId),
      ),
    )
    .orderBy(products.id);
  const blocks = rows.map((row) => `/* product ${row.id} */\n${row.css}`);
  return { kind: "text", contentType: "text/css; charset=utf-8", body: [BASE_CONTENT_CSS, ...blocks].join("\n\n") };
}

const BASE_CONTENT_CSS = `/* Shelf product content */
.shelf-content { line-height: 1.6; overflow-wrap: anywhere; }
.shelf-content img, .shelf-content video { max-width: 100%; height: auto; }
.shelf-content pre { overflow-x: auto; padding: 0.75em; border-radius: 6px; background: rgba(127, 127, 127, 0.12); }`;
