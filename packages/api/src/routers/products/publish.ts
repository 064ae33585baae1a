import { pipeline, Readable, Transform, type TransformCallback } from "node:stream";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { releaseChannels } from "@shelf/db/enums";
import type { SigningKeyring } from "@shelf/server/signing/keyring";
import type { ArtifactStore, ByteSource, StoredObject } from "@shelf/server/storage/store";
import { and, eq, sql } from "drizzle-orm";
import semver from "semver";
import { z } from "zod";
import { contentTypeOf } from "../../delivery/artifacts";
import { DomainError, isUniqueViolation, parseInput } from "../../errors";
import { hasControlCharacter } from "../../schemas/common";
import { ContentAssetPath } from "./schemas";

const { products, releases, productContentAssets } = schema;

/**
 * The largest artifact accepted. Ed25519 (Sparkle's edSignature) signs the whole message at once, so publishing
 * holds the artifact in memory once; downloads stream whatever the size.
 */
export const MAX_ARTIFACT_BYTES = 2 * 1024 ** 3;

export const PublishReleaseInput = z.object({
  productId: z.number().int().positive(),
  version: z
    .string()
    .trim()
    .max(64)
    .refine((version) => semver.valid(version) === version, "must be a semantic version such as 1.2.0 or 2.0.0-beta.1"),
  channel: z.enum(releaseChannels).default("stable"),
  /** The artifact's file name as downloads offer it. */
  filename: z
    .string()
    .min(1)
    .max(255)
    .refine(
      (name) => !/[/\\]/.test(name) && !hasControlCharacter(name),
      "must be a file name without slashes or control characters",
    )
    .refine((name) => name !== "." && name !== "..", "must be a file name"),
  notesEn: z.string().trim().max(20_000).nullish(),
  notesKo: z.string().trim().max(20_000).nullish(),
  /** Oldest OS version it runs on, e.g. 13.0 (Sparkle's minimumSystemVersion). */
  minOsVersion: z
    .string()
    .regex(/^\d+(\.\d+){0,2}$/, "must be a version like 13 or 13.5")
    .nullish(),
  /** The build number (Sparkle's sparkle:version, CFBundleVersion); the version when absent. */
  build: z
    .string()
    .regex(/^[0-9A-Za-z][0-9A-Za-z.-]{0,63}$/, "must be letters, digits, dots and hyphens, like 241 or 2.4.1.7")
    .nullish(),
  /** What the build runs on: an OS, optionally with an architecture (`macos`, `macos-arm64`, `linux-x86_64`). */
  platform: z
    .string()
    .regex(
      /^(macos|windows|linux)(-(arm64|x86_64|universal))?$/,
      "must be macos, windows or linux, optionally -arm64, -x86_64 or -universal",
    )
    .nullish(),
  critical: z.boolean().default(false),
});
export type PublishReleaseInput = z.input<typeof PublishReleaseInput>;

export type PublishedRelease = {
  id: number;
  product_id: number;
  version: string;
  channel: string;
  build: string | null;
  filename: string;
  content_type: string;
  sha256: string;
  size: number;
  signature: string;
  signing_kid: string;
  released_at: string;
};

/** Keeps what flows through (for the signature) and stops a stream that grows past the limit. */
class Collect extends Transform {
  readonly chunks: Buffer[] = [];
  byteCount = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.byteCount += chunk.length;
    if (this.byteCount > MAX_ARTIFACT_BYTES) {
      done(new DomainError("payload_too_large", `An artifact may be at most ${MAX_ARTIFACT_BYTES} bytes.`));
      return;
    }
    this.chunks.push(chunk);
    done(null, chunk);
  }
}

async function requireProduct(db: Database, productId: number) {
  const [product] = await db.select({ id: products.id }).from(products).where(eq(products.id, productId));
  if (!product) throw new DomainError("not_found", `There is no product ${productId}.`);
}

function versionTaken(productId: number, version: string) {
  return new DomainError("conflict", `Version ${version} of product ${productId} is already published.`);
}

/**
 * Streams a release file into the store (which measures its sha256 and size) and signs it with the signing key
 * (Ed25519 over the whole file, Sparkle's edSignature): the release columns that describe it, all set together.
 */
export async function storeSignedArtifact(
  services: { store: ArtifactStore; keyring: SigningKeyring },
  filename: string,
  source: ByteSource,
) {
  const contentType = contentTypeOf(filename);
  const collect = new Collect();
  const stored = await services.store.put(
    pipeline(Readable.from(source), collect, () => {}),
    contentType,
  );
  const { kid, signature } = services.keyring.sign("sparkle", Buffer.concat(collect.chunks, collect.byteCount));
  collect.chunks.length = 0;
  return {
    artifactKey: stored.key,
    artifactFilename: filename,
    artifactContentType: contentType,
    artifactSha256: stored.sha256,
    artifactSize: stored.size,
    artifactEdSignature: signature.toString("base64"),
    signingKid: kid,
  };
}

/**
 * Publishes a release: streams the artifact into the store (which measures its sha256 and size), signs it with the
 * signing key (Ed25519 over the whole file, for Sparkle), and records the release. A version is published once per
 * product; anything that fails on the way leaves neither a release nor a stored object behind.
 */
export async function publishRelease(
  db: Database,
  services: { store: ArtifactStore; keyring: SigningKeyring },
  rawInput: PublishReleaseInput,
  source: ByteSource,
): Promise<PublishedRelease> {
  const input = parseInput(PublishReleaseInput, rawInput);
  await requireProduct(db, input.productId);
  const [existing] = await db
    .select({ id: releases.id })
    .from(releases)
    .where(and(eq(releases.productId, input.productId), eq(releases.version, input.version)));
  if (existing) throw versionTaken(input.productId, input.version);

  const artifact = await storeSignedArtifact(services, input.filename, source);
  try {
    const [row] = await db
      .insert(releases)
      .values({
        productId: input.productId,
        version: input.version,
        channel: input.channel,
        build: input.build ?? null,
        notesEn: input.notesEn ?? null,
        notesKo: input.notesKo ?? null,
        notes: input.notesEn ?? input.notesKo ?? null,
        minOsVersion: input.minOsVersion ?? null,
        platform: input.platform ?? null,
        critical: input.critical,
        artifactFormat: formatOf(input.filename),
        ...artifact,
      })
      .returning();
    const release = row as typeof releases.$inferSelect;
    return {
      id: release.id,
      product_id: release.productId,
      version: release.version,
      channel: release.channel,
      build: release.build,
      filename: artifact.artifactFilename,
      content_type: artifact.artifactContentType,
      sha256: artifact.artifactSha256,
      size: artifact.artifactSize,
      signature: artifact.artifactEdSignature,
      signing_kid: artifact.signingKid,
      released_at: release.releasedAt.toISOString(),
    };
  } catch (error) {
    await services.store.remove(artifact.artifactKey);
    if (isUniqueViolation(error, "releases_product_version_key")) throw versionTaken(input.productId, input.version);
    throw error;
  }
}

/** The file's kind from its name: `tar.gz`, `dmg`, `zip`, ... */
function formatOf(filename: string): string | null {
  const match = /\.(tar\.(?:gz|xz|bz2|zst)|[A-Za-z0-9]{1,10})$/.exec(filename);
  return match ? (match[1] as string).toLowerCase() : null;
}

export const PutContentAssetInput = z.object({
  productId: z.number().int().positive(),
  path: ContentAssetPath,
});

export type ContentAssetRecord = {
  id: number;
  product_id: number;
  path: string;
  size: number;
  sha256: string;
  content_type: string;
  updated_at: string;
  replaced: boolean;
};

/**
 * Stores a product's content asset at `path`, replacing the one there: the new bytes are stored first, the row then
 * points at them in one statement, and only then is the old object removed, so a reader always gets a whole file.
 */
export async function putContentAsset(
  db: Database,
  store: ArtifactStore,
  rawInput: z.input<typeof PutContentAssetInput>,
  source: ByteSource,
): Promise<ContentAssetRecord> {
  const input = parseInput(PutContentAssetInput, rawInput);
  await requireProduct(db, input.productId);
  const contentType = contentTypeOf(input.path);
  const stored: StoredObject = await store.put(source, contentType);
  let row: { id: number; updatedAt: Date } | undefined;
  let replacedKey: string | null = null;
  try {
    row = await db.transaction(async (tx) => {
      // One writer per path at a time, so the object each replaces is the one it read.
      await tx.execute(sql`select pg_advisory_xact_lock(${input.productId}, hashtext(${input.path}))`);
      const [previous] = await tx
        .select({ key: productContentAssets.storageKey })
        .from(productContentAssets)
        .where(and(eq(productContentAssets.productId, input.productId), eq(productContentAssets.path, input.path)));
      replacedKey = previous?.key ?? null;
      const values = { storageKey: stored.key, sha256: stored.sha256, size: stored.size, contentType };
      const [written] = await tx
        .insert(productContentAssets)
        .values({ productId: input.productId, path: input.path, ...values })
        .onConflictDoUpdate({
          target: [productContentAssets.productId, productContentAssets.path],
          set: { ...values, updatedAt: sql`now()` },
        })
        .returning({ id: productContentAssets.id, updatedAt: productContentAssets.updatedAt });
      return written;
    });
  } catch (error) {
    await store.remove(stored.key);
    throw error;
  }
  const { id, updatedAt } = row as NonNullable<typeof row>;
  if (replacedKey) await store.remove(replacedKey);
  return {
    id,
    product_id: input.productId,
    path: input.path,
    size: stored.size,
    sha256: stored.sha256,
    content_type: contentType,
    updated_at: updatedAt.toISOString(),
    replaced: replacedKey !== null,
  };
}
