import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { releaseChannels } from "../enums";
import { belongsToProduct } from "./catalog";
import { identityId, timestampNow } from "./columns";

export const releaseChannel = pgEnum("release_channel", releaseChannels);

export const releases = pgTable(
  "releases",
  {
    id: identityId(),
    productId: belongsToProduct(),
    version: text().notNull(),
    build: text(),
    channel: releaseChannel().notNull().default("stable"),
    notes: text(),
    notesKo: text(),
    notesEn: text(),
    sourceRef: text(),
    artifactFilename: text(),
    artifactFormat: text(),
    artifactSha256: text(),
    artifactSize: bigint({ mode: "number" }),
    /** Where the artifact's bytes are in the artifact store; set together with its sha256, size and filename. */
    artifactKey: text(),
    artifactContentType: text(),
    /** Ed25519 over the whole artifact (Sparkle's edSignature), base64, and the signing key that made it. */
    artifactEdSignature: text(),
    signingKid: text(),
    /** Oldest OS version the release runs on (Sparkle's minimumSystemVersion). */
    minOsVersion: text(),
    /** What the build runs on, e.g. `macos-arm64` (Sparkle's hardwareRequirements). */
    platform: text(),
    /** Sparkle shows a critical update at once and will not let it be skipped. */
    critical: boolean().notNull().default(false),
    releasedAt: timestampNow(),
    /** Sorts in semver precedence under COLLATE "C" (migration 0003); null for a version that is not semver. */
    versionSort: text().generatedAlwaysAs(sql`shelf_semver_sort_key(version)`),
    /** Withdrawn: hidden from update checks, install plans, feeds and lists; the row stays for the record. */
    yankedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("releases_product_version_key").on(t.productId, t.version),
    index().on(t.productId, t.releasedAt),
    check("releases_sha256_hex", sql`${t.artifactSha256} IS NULL OR ${t.artifactSha256} ~ '^[0-9a-f]{64}$'`),
    // An artifact is all there or not at all: never a checksum without bytes to serve, or bytes without a name.
    check(
      "releases_artifact_complete",
      sql`(${t.artifactKey} IS NULL) = (${t.artifactSha256} IS NULL) AND (${t.artifactKey} IS NULL) = (${t.artifactSize} IS NULL) AND (${t.artifactKey} IS NULL) = (${t.artifactFilename} IS NULL)`,
    ),
  ],
);
