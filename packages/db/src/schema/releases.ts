import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { releaseChannels } from "../enums";
import { products } from "./catalog";

export const releaseChannel = pgEnum("release_channel", releaseChannels);

export const releases = pgTable(
  "releases",
  {
    id: integer().primaryKey().generatedAlwaysAsIdentity(),
    productId: integer()
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
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
    releasedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Sorts in semver precedence under COLLATE "C" (migration 0003); null for a version that is not semver. */
    versionSort: text().generatedAlwaysAs(sql`shelf_semver_sort_key(version)`),
    /** Withdrawn: hidden from update checks, install plans, feeds and lists; the row stays for the record. */
    yankedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("releases_product_channel_version_key").on(t.productId, t.channel, t.version),
    index().on(t.productId, t.releasedAt),
    check("releases_sha256_hex", sql`${t.artifactSha256} IS NULL OR ${t.artifactSha256} ~ '^[0-9a-f]{64}$'`),
  ],
);
