import path from "node:path";
import { loadSigningKeyring, productAdmin, publishing } from "@shelf/api";
import { flag, optionalString, requiredInteger, requiredString, UsageError } from "../args";
import { byIdCommand, type Command } from "../command";
import { openInputFile } from "../files";

export const releasePublish: Command = {
  name: "release:publish",
  summary: "Publish a release: store its file, sign it, and offer it on its channel",
  synopsis:
    "--product ID --version V --file PATH [--channel stable|beta|alpha|dev] [--notes-en T] [--notes-ko T] [--min-os V] [--build B] [--platform P] [--critical]",
  details: [
    "The version is a semantic version (1.4.0, 2.0.0-beta.1), published once per product. The file is streamed into",
    "the artifact store; its sha256 and size are measured there, and it is signed with the signing key (Sparkle's",
    "edSignature). --build is the CFBundleVersion Sparkle compares (default: the version). --platform is macos,",
    "windows or linux, optionally -arm64, -x86_64 or -universal. If anything fails, no release and no file remain.",
  ],
  options: {
    product: { type: "string" },
    version: { type: "string" },
    file: { type: "string" },
    channel: { type: "string" },
    "notes-en": { type: "string" },
    "notes-ko": { type: "string" },
    "min-os": { type: "string" },
    build: { type: "string" },
    platform: { type: "string" },
    critical: { type: "boolean" },
  },
  prepare(values) {
    const file = requiredString(values, "file");
    const input = {
      productId: requiredInteger(values, "product", { min: 1 }),
      version: requiredString(values, "version"),
      channel: optionalString(values, "channel") as publishing.PublishReleaseInput["channel"],
      filename: path.basename(file),
      notesEn: optionalString(values, "notes-en"),
      notesKo: optionalString(values, "notes-ko"),
      minOsVersion: optionalString(values, "min-os"),
      build: optionalString(values, "build"),
      platform: optionalString(values, "platform"),
      critical: flag(values, "critical"),
    };
    return async ({ db, store, signingKeys }) => {
      const source = await openInputFile(file, "file");
      if (source.size > publishing.MAX_ARTIFACT_BYTES) {
        source.stream.destroy();
        throw new UsageError(`--file ${file}: ${source.size} bytes; a release file may be at most 2 GiB.`);
      }
      const keyring = await loadSigningKeyring(signingKeys);
      const release = await publishing.publishRelease(db, { store, keyring }, input, source.stream);
      return {
        json: release,
        text: [
          `Published release ${release.id}: version ${release.version} (${release.channel}) of product ${release.product_id}.`,
          `  file       ${release.filename} (${release.size} bytes, ${release.content_type})`,
          `  sha256     ${release.sha256}`,
          `  signature  ${release.signature} (key ${release.signing_kid})`,
        ].join("\n"),
      };
    };
  },
};

export const releaseYank = byIdCommand({
  name: "release:yank",
  summary: "Withdraw a release (hidden from update checks, plans, feeds and lists; kept for the record)",
  synopsis: "--id ID",
  act: productAdmin.yankRelease,
  describe: (release) =>
    `Yanked release ${release.id} (${release.version}, ${release.channel}) of product ${release.product_id} at ${release.yanked_at}.`,
});

export const assetPut: Command = {
  name: "asset:put",
  summary: "Store a content asset of a product at a path (replacing the one there)",
  synopsis: "--product ID --path P --file F",
  details: [
    "Served to the product's buyers at /api/products/ID/content-assets/P. P is a relative path such as",
    "install/macos.sh: names separated by /, no . or .. segments, no backslashes.",
  ],
  options: { product: { type: "string" }, path: { type: "string" }, file: { type: "string" } },
  prepare(values) {
    const file = requiredString(values, "file");
    const input = { productId: requiredInteger(values, "product", { min: 1 }), path: requiredString(values, "path") };
    return async ({ db, store }) => {
      const source = await openInputFile(file, "file");
      const asset = await publishing.putContentAsset(db, store, input, source.stream);
      return {
        json: asset,
        text: `${asset.replaced ? "Replaced" : "Stored"} content asset ${asset.path} of product ${asset.product_id} (${asset.size} bytes, ${asset.content_type}, sha256 ${asset.sha256}).`,
      };
    };
  },
};
