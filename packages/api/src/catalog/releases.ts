/**
 * What the catalog's domains (products, distribution) ask of one release: its file, and whether a buyer may have it.
 */
import type { schema } from "@shelf/db";
import { DomainError } from "../errors";

type ReleaseRow = typeof schema.releases.$inferSelect;

/** The stored artifact of a release that has one (the schema keeps its fields all set or all null). */
export function releaseArtifact(release: ReleaseRow) {
  if (release.artifactKey === null) throw new DomainError("not_found", "This release has no file to download.");
  return {
    key: release.artifactKey,
    sha256: release.artifactSha256 as string,
    size: release.artifactSize as number,
    filename: release.artifactFilename as string,
    contentType: release.artifactContentType ?? "application/octet-stream",
    productId: release.productId,
  };
}

/** A buyer may download a release published while their updates were supported (or forever, without a limit). */
export function withinUpdateWindow(updatesSupportedUntil: Date | null, releasedAt: Date): boolean {
  return updatesSupportedUntil === null || releasedAt <= updatesSupportedUntil;
}
