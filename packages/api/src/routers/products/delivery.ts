import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { ReleaseChannel } from "@shelf/db/enums";
import type { FileOutput } from "@shelf/server/plain";
import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import { NEWEST_VERSION_FIRST_SQL, offeredReleases, visibleChannels } from "../../catalog/channels";
import { releaseArtifact, withinUpdateWindow } from "../../catalog/releases";
import type { Delivery } from "../../delivery";
import { storedFile } from "../../delivery/artifacts";
import { DomainError } from "../../errors";
import { perDatabase } from "../../prepared";
import type { ProductAccess } from "../../product-access";
import type { ProductInstallData } from "./schemas";
import { newestRelease } from "./service";

const { products, releases, productContentAssets } = schema;

/** A buyer's own copy: revalidated on every use, never kept by shared caches. */
const PRIVATE_FILE = "private, no-cache";

const installableReleaseQuery = perDatabase((db) =>
  db
    .select()
    .from(releases)
    .where(
      offeredReleases(
        isNotNull(releases.artifactKey),
        sql`(${sql.placeholder("updatesUntil")}::timestamptz is null or ${releases.releasedAt} <= ${sql.placeholder("updatesUntil")}::timestamptz)`,
      ),
    )
    .orderBy(sql.raw(NEWEST_VERSION_FIRST_SQL))
    .limit(1)
    .prepare("shelf_installable_release"),
);

const installProductQuery = perDatabase((db) =>
  db
    .select({
      kind: products.kind,
      name: products.name,
      slug: products.slug,
      delivery: products.delivery,
      platforms: products.platforms,
    })
    .from(products)
    .where(eq(products.id, sql.placeholder("productId")))
    .prepare("shelf_install_product"),
);

/**
 * The install plan: the newest release of the channel the buyer may install, which is the newest one published
 * while their updates were supported (a buyer past the window keeps installing the last version they were entitled
 * to), with a signed link that expires minutes later.
 */
export async function installPlan(
  db: Database,
  delivery: Delivery,
  access: ProductAccess,
  channel: ReleaseChannel = "stable",
): Promise<{ data: ProductInstallData }> {
  const [[release], [product]] = await Promise.all([
    installableReleaseQuery(db).execute({
      productId: access.id,
      channels: visibleChannels(channel),
      updatesUntil: access.entitlement?.updatesSupportedUntil?.toISOString() ?? null,
    }),
    installProductQuery(db).execute({ productId: access.id }),
  ]);
  if (!release || !product) throw new DomainError("install_not_available");
  const artifact = releaseArtifact(release);
  const link = await delivery.links.link(artifact);
  const plan = product.delivery;
  return {
    data: {
      product_id: access.id,
      kind: product.kind,
      name: product.name,
      version: release.version,
      build: release.build,
      channel: release.channel,
      filename: artifact.filename,
      sha256: artifact.sha256,
      size: artifact.size,
      format: plan?.strategy ?? "manual",
      download_url: link.url,
      download_expires_at: link.expiresAt.toISOString(),
      target: plan?.targets[0] ?? product.platforms[0] ?? "any",
      slug: product.slug,
    },
  };
}

/**
 * The newest release of the channel as a file. A buyer whose updates ended before it was published gets 403
 * `version_update_window_expired` (the install plan offers them the last version they may have).
 */
export async function bundle(
  db: Database,
  delivery: Delivery,
  access: ProductAccess,
  channel: ReleaseChannel = "stable",
): Promise<FileOutput> {
  const release = await newestRelease(db, access.id, channel);
  if (!release?.artifactKey) throw new DomainError("not_found", "This product has no release to download.");
  if (!withinUpdateWindow(access.entitlement?.updatesSupportedUntil ?? null, release.releasedAt)) {
    throw new DomainError("version_update_window_expired");
  }
  // The contract types the bundle as plain bytes, whatever the artifact is; its file name still says what it is.
  const artifact = { ...releaseArtifact(release), contentType: "application/octet-stream" };
  return storedFile(delivery.store, { ...artifact, lastModified: release.releasedAt }, PRIVATE_FILE);
}

function contentAssetUrl(baseUrl: string, productId: number, path: string): string {
  return `${baseUrl}/api/products/${productId}/content-assets/${path.split("/").map(encodeURIComponent).join("/")}`;
}

export async function listContentAssets(db: Database, productId: number, baseUrl: string) {
  const rows = await db
    .select()
    .from(productContentAssets)
    .where(eq(productContentAssets.productId, productId))
    .orderBy(asc(productContentAssets.path));
  return {
    assets: rows.map((row) => ({
      path: row.path,
      size: row.size,
      sha256: row.sha256,
      content_type: row.contentType,
      updated_at: row.updatedAt.toISOString(),
      download_url: contentAssetUrl(baseUrl, productId, row.path),
    })),
  };
}

/** One content asset by its exact path; there is no other way to name a stored file. */
export async function contentAsset(db: Database, delivery: Delivery, productId: number, path: string) {
  const [row] = await db
    .select()
    .from(productContentAssets)
    .where(and(eq(productContentAssets.productId, productId), eq(productContentAssets.path, path)));
  if (!row) throw new DomainError("not_found", "No such content asset.");
  return storedFile(
    delivery.store,
    {
      key: row.storageKey,
      sha256: row.sha256,
      size: row.size,
      contentType: row.contentType,
      filename: null,
      lastModified: row.updatedAt,
    },
    PRIVATE_FILE,
  );
}
