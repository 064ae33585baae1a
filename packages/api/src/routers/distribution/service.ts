import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { ReleaseChannel } from "@shelf/db/enums";
import type { FileOutput, RedirectOutput, TextOutput } from "@shelf/server/plain";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { NEWEST_VERSION_FIRST_SQL, offeredReleases } from "../../catalog/channels";
import { releaseArtifact } from "../../catalog/releases";
import type { Delivery } from "../../delivery";
import { storedFile } from "../../delivery/artifacts";
import { DomainError } from "../../errors";
import { perDatabase } from "../../prepared";
import { qualified } from "../../sql-text";
import { assertMayDownload, distributionAccess, feedChannels } from "./access";
import { type AppcastItem, signedAppcast } from "./appcast";

const { products, releases } = schema;

export function releaseDownloadUrl(appUrl: string, releaseId: number): string {
  return `${appUrl}/distribution/v1/releases/${releaseId}/download`;
}

/**
 * The product's Sparkle appcast: one item per release with a file, newest first, signed as a whole. A feed read
 * without a key may be kept by shared caches for a minute; one read with a key is the buyer's own.
 */
export async function appcast(
  db: Database,
  delivery: Delivery,
  caller: Caller | null,
  productId: number,
  channel: ReleaseChannel | undefined,
): Promise<TextOutput> {
  await distributionAccess(db, caller, productId);
  const channels = feedChannels(channel);
  const [[product], rows] = await Promise.all([
    appcastProductQuery(db).execute({ productId }),
    feedReleasesQuery(db).execute({ productId, channels }),
  ]);
  const items: AppcastItem[] = rows.map((release) => {
    const artifact = releaseArtifact(release);
    return {
      version: release.version,
      build: release.build,
      channel: release.channel,
      publishedAt: release.releasedAt,
      notesEn: release.notesEn ?? (release.notesKo ? null : release.notes),
      notesKo: release.notesKo,
      minimumSystemVersion: release.minOsVersion,
      platform: release.platform,
      critical: release.critical,
      url: releaseDownloadUrl(delivery.appUrl, release.id),
      length: artifact.size,
      type: artifact.contentType,
      edSignature: release.artifactEdSignature,
    };
  });
  const feedUrl = `${delivery.appUrl}/distribution/v1/products/${productId}/appcast.xml${channel ? `?channel=${channel}` : ""}`;
  return {
    kind: "text",
    contentType: "application/rss+xml; charset=utf-8",
    body: signedAppcast(
      { title: product?.name ?? "", link: feedUrl, language: product?.contentLocale ?? "en", items },
      delivery.keyring,
    ),
    cacheControl: caller ? "private, no-cache" : "public, max-age=60",
    lastModified: product?.lastChange ? new Date(product.lastChange) : null,
  };
}

/** The feed's title and language, and when the product's releases last changed (published or yanked). */
const appcastProductQuery = perDatabase((db) =>
  db
    .select({
      name: products.name,
      contentLocale: products.contentLocale,
      lastChange: sql<
        string | null
      >`(select max(greatest(r.released_at, r.yanked_at)) from releases r where r.product_id = ${qualified(products.id)})`,
    })
    .from(products)
    .where(eq(products.id, sql.placeholder("productId")))
    .prepare("shelf_appcast_product"),
);

const feedReleasesQuery = perDatabase((db) =>
  db
    .select()
    .from(releases)
    .where(offeredReleases(isNotNull(releases.artifactKey)))
    .orderBy(sql.raw(NEWEST_VERSION_FIRST_SQL))
    .prepare("shelf_feed_releases"),
);

/** A release's download: a redirect to a short-lived signed link, when this caller may have it. */
export async function releaseDownload(
  db: Database,
  delivery: Delivery,
  caller: Caller | null,
  releaseId: number,
): Promise<RedirectOutput> {
  const [release] = await db
    .select()
    .from(releases)
    .where(and(eq(releases.id, releaseId), isNull(releases.yankedAt), isNotNull(releases.artifactKey)));
  if (!release) throw new DomainError("not_found", "No such release.");
  const access = await distributionAccess(db, caller, release.productId);
  assertMayDownload(access, caller, release);
  const link = await delivery.links.link(releaseArtifact(release));
  return { kind: "redirect", status: 302, location: link.url, cacheControl: "no-store" };
}

/** The file a signed link names; the link is the permission, checked without the database. */
export function signedFile(delivery: Delivery, token: string, filename: string): FileOutput {
  const ticket = delivery.links.verify(token, filename);
  return storedFile(delivery.store, { ...ticket, lastModified: null }, "private, no-cache");
}
