import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type { DeliveryFiles } from "@shelf/api";
import { createApiKey, revokeApiKey, toApiKeyRecord } from "@shelf/api/auth/key-issuing";
import { deriveKeySecret, hashSecret } from "@shelf/api/auth/key-secret";
import { hashPassword } from "@shelf/api/auth/password";
import { createAccount, findAccountByEmail } from "@shelf/api/routers/accounts/service";
import { putContentAsset, storeSignedArtifact } from "@shelf/api/routers/products/publish";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { demoArtifact, demoSkillArchive, demoToolArchive } from "./archives";
import { ensureDemoBilling, ensureDemoPass } from "./billing";
import {
  DEMO_EMAIL,
  DEMO_KEY_NAME,
  DEMO_NAME,
  DEMO_PASSWORD,
  DEMO_STORE_URL,
  DEMO_UPDATE_WINDOW_END,
  DEMO_UPDATE_WINDOW_GRANTED,
  type DemoProduct,
  demoCategories,
  demoKeyAbilities,
  demoLineages,
  demoProducts,
  demoTags,
} from "./catalog";
import { demoReleaseFile } from "./release-files";
import { DAY_MS, SEED_LOCK_ID, type Transaction } from "./seeding";

export { loadDemoSecret } from "./secret";

const {
  accounts,
  apiKeys,
  categories,
  entitlements,
  lineages,
  mcpServers,
  mcpTools,
  invoices,
  orderItems,
  orders,
  paymentMethods,
  productCategories,
  productContentAssets,
  productInstallAssets,
  productSetupOutputs,
  productTags,
  products,
  releases,
  subscriptions,
  tags,
} = schema;

/** Every table the demo data set writes to (besides api_keys): running the seed again must leave their counts alone. */
export const demoTables = [
  schema.accounts,
  products,
  categories,
  tags,
  productCategories,
  productTags,
  productSetupOutputs,
  productInstallAssets,
  productContentAssets,
  releases,
  entitlements,
  mcpServers,
  mcpTools,
  subscriptions,
  lineages,
  orders,
  orderItems,
  invoices,
  paymentMethods,
];

/** Row counts of the demo tables, in `demoTables` order. */
export function countDemoRows(db: Database): Promise<number[]> {
  return Promise.all(demoTables.map((table) => db.$count(table)));
}

export type DemoSeedResult = {
  accountId: number;
  /** The demo account's sign-in for the pages. */
  email: string;
  password: string;
  /** The demo key in plain text: the same for every seed with the same secret. */
  key: string;
  keyId: number;
  prefix: string;
  /** Ids of the demo products, in catalog order. */
  productIds: number[];
};

/**
 * Fills the database with the demo data set, matching existing rows by email, slug and name, so running it again
 * changes nothing. The demo key is derived from `secret` (the installation's demo secret, see demo/secret.ts): the
 * web app and the operator CLI print the same key, and a second seed keeps the first one's key working. Other live
 * demo keys (from another secret) are revoked, so the account's key slots never run out.
 */
export async function seedDemo(
  db: Database,
  options: { brand: string; secret: string; files: DeliveryFiles },
): Promise<DemoSeedResult> {
  const accountId = await ensureDemoAccount(db);
  const productIds = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    const categoryIds = await ensureCategories(tx);
    const tagIds = await ensureTags(tx);
    const ids: number[] = [];
    for (const product of demoProducts) {
      ids.push(await ensureProduct(tx, accountId, product, categoryIds, tagIds));
    }
    return ids;
  });
  await ensureDemoFiles(db, options.files, productIds);
  await ensureDemoLineages(db);
  await ensureDemoPass(db, accountId);
  await ensureDemoBilling(db, accountId, productIds);
  const { key, record } = await issueDemoKey(db, accountId, options.brand, options.secret);
  return {
    accountId,
    email: DEMO_EMAIL,
    password: DEMO_PASSWORD,
    key,
    keyId: record.id,
    prefix: record.prefix,
    productIds,
  };
}

/**
 * Real files behind the demo releases (signed, as `release:publish` signs them), the demo install assets and hero
 * images, so the demo's install plans, bundles, feeds, downloads and pictures all work. Files already there are kept; a seeder that loses a
 * race to another removes what it stored.
 */
async function ensureDemoFiles(db: Database, files: DeliveryFiles, productIds: number[]) {
  for (const [index, product] of demoProducts.entries()) {
    const productId = productIds[index] as number;
    const missing = await db
      .select({ id: releases.id, version: releases.version })
      .from(releases)
      .where(and(eq(releases.productId, productId), isNull(releases.artifactKey)));
    for (const release of missing) {
      const format = product.releases.find((planned) => planned.version === release.version)?.artifactFormat;
      const filename = `${product.slug}-${release.version}${format ? `.${format}` : ""}`;
      const bytes = demoArtifact(product.slug, release.version);
      const binaryPath = product.delivery?.strategy === "binary" ? product.delivery.payload.binary_path : undefined;
      const skillRoot = product.delivery?.strategy === "agent-skill" ? product.delivery.payload.root : undefined;
      // A command-line tool's archive is a real one (`shelf install` unpacks it and links the binary it names), and
      // so is an agent skill's (unpacked, its root folder becomes the skill); every other file too (release-files.ts).
      const content =
        format === "tar.gz" && typeof binaryPath === "string"
          ? demoToolArchive(binaryPath, product.name, release.version, bytes)
          : format === "zip" && typeof skillRoot === "string"
            ? demoSkillArchive(skillRoot, product, release.version)
            : demoReleaseFile(product, release.version, format ?? "", bytes);
      const artifact = await storeSignedArtifact(files, filename, [content]);
      const updated = await db
        .update(releases)
        .set(artifact)
        .where(and(eq(releases.id, release.id), isNull(releases.artifactKey)))
        .returning({ id: releases.id });
      if (updated.length === 0) await files.store.remove(artifact.artifactKey);
    }
    const present = async (path: string) =>
      (
        await db
          .select({ id: productContentAssets.id })
          .from(productContentAssets)
          .where(and(eq(productContentAssets.productId, productId), eq(productContentAssets.path, path)))
      ).length > 0;
    for (const asset of product.installAssets ?? []) {
      if (await present(asset.path)) continue;
      const text = `${product.name}: ${asset.label}\nA demo file of Shelf, standing in for ${asset.path}.\n`;
      await putContentAsset(db, files.store, { productId, path: asset.path }, Readable.from([Buffer.from(text)]));
    }
    // The hero image is a content asset at its hero_path, as a publisher would upload it.
    if (product.heroPath && !(await present(product.heroPath))) {
      const image = new URL(`./images/heroes/${product.slug}.png`, import.meta.url);
      await putContentAsset(db, files.store, { productId, path: product.heroPath }, createReadStream(image));
    }
  }
}

/** The demo's lineages, made once; a demo product in none joins its lineage (an operator's moves are kept). */
async function ensureDemoLineages(db: Database) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    for (const [position, lineage] of demoLineages.entries()) {
      const [existing] = await tx.select({ id: lineages.id }).from(lineages).where(eq(lineages.slug, lineage.slug));
      const id =
        existing?.id ??
        (
          await tx
            .insert(lineages)
            .values({ slug: lineage.slug, name: lineage.name, description: lineage.description, position })
            .returning({ id: lineages.id })
        )[0]?.id;
      await tx
        .update(products)
        .set({ lineageId: id })
        .where(and(inArray(products.slug, [...lineage.products]), isNull(products.lineageId)));
    }
  });
}

async function ensureDemoAccount(db: Database): Promise<number> {
  const existing = await findAccountByEmail(db, DEMO_EMAIL);
  if (existing) {
    if (existing.passwordHash === null) {
      await db
        .update(accounts)
        .set({ passwordHash: await hashPassword(DEMO_PASSWORD) })
        .where(and(eq(accounts.id, existing.id), isNull(accounts.passwordHash)));
    }
    return existing.id;
  }
  try {
    return (await createAccount(db, { email: DEMO_EMAIL, name: DEMO_NAME, password: DEMO_PASSWORD })).id;
  } catch (error) {
    // Another seeder created it between our lookup and insert.
    const created = await findAccountByEmail(db, DEMO_EMAIL);
    if (created) return created.id;
    throw error;
  }
}

/**
 * The demo key of this secret: the first of its derived keys (generation 0, 1, ...) that was never revoked or let
 * expire, created if need be. Every process with the same secret walks the same sequence, so they all agree, and a
 * revoked demo key is never brought back. Seeders take turns on the seed lock, so two of them never race here.
 */
async function issueDemoKey(db: Database, accountId: number, brand: string, seed: string) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    for (let generation = 0; generation < 100; generation++) {
      const secret = deriveKeySecret(brand, seed, `demo key ${generation}`);
      const [row] = await tx
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.hash, hashSecret(secret)));
      if (row && !row.revokedAt && (!row.expiresAt || row.expiresAt > new Date())) {
        // A demo key made by an earlier version keeps working and gains what the demo key holds now.
        const abilities = [...demoKeyAbilities];
        if (row.abilities.join() === abilities.join()) return { key: secret, record: toApiKeyRecord(row) };
        const [updated] = await tx.update(apiKeys).set({ abilities }).where(eq(apiKeys.id, row.id)).returning();
        return { key: secret, record: toApiKeyRecord(updated as typeof row) };
      }
      if (row) continue;
      const others = await tx
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.name, DEMO_KEY_NAME), isNull(apiKeys.revokedAt)));
      for (const { id } of others) await revokeApiKey(tx, accountId, id);
      const input = { accountId, name: DEMO_KEY_NAME, abilities: [...demoKeyAbilities] };
      return createApiKey(tx, input, brand, { secret });
    }
    throw new Error("No usable demo key: delete the data folder's demo-secret to start a new sequence.");
  });
}

async function ensureCategories(tx: Transaction): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  // Parents come before their children in the list, so a child always finds its parent's id.
  for (const categoryPath of demoCategories) {
    const separator = categoryPath.lastIndexOf("/");
    const name = categoryPath.slice(separator + 1);
    const parentId = separator < 0 ? null : (ids.get(categoryPath.slice(0, separator)) ?? null);
    const parentMatch = parentId === null ? isNull(categories.parentId) : eq(categories.parentId, parentId);
    const [existing] = await tx
      .select({ id: categories.id })
      .from(categories)
      .where(and(eq(categories.name, name), parentMatch))
      .orderBy(categories.id)
      .limit(1);
    const id =
      existing?.id ?? (await tx.insert(categories).values({ name, parentId }).returning({ id: categories.id }))[0]?.id;
    ids.set(categoryPath, id as number);
  }
  return ids;
}

async function ensureTags(tx: Transaction): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const tag of demoTags) {
    const [existing] = await tx
      .select({ id: tags.id })
      .from(tags)
      .where(eq(tags.name, tag.name))
      .orderBy(tags.id)
      .limit(1);
    const id =
      existing?.id ??
      (await tx.insert(tags).values({ name: tag.name, type: tag.type }).returning({ id: tags.id }))[0]?.id;
    ids.set(tag.name, id as number);
  }
  return ids;
}

async function ensureProduct(
  tx: Transaction,
  accountId: number,
  product: DemoProduct,
  categoryIds: Map<string, number>,
  tagIds: Map<string, number>,
): Promise<number> {
  const values = {
    name: product.name,
    kind: product.kind,
    description: product.description,
    listPriceCents: product.listPriceCents,
    unitPriceCents: product.unitPriceCents,
    currency: "USD",
    published: product.published,
    primaryCategoryId: categoryIds.get(product.primaryCategory) ?? null,
    contentLocale: "en",
    delivery: product.delivery,
    manual: product.manual,
    runtime: product.runtime,
    platforms: product.platforms,
    thumbnailHtml: product.thumbnailHtml ?? null,
    detailHtml: product.detailHtml ?? null,
    contentCss: product.contentCss ?? null,
    heroPath: product.heroPath,
    heroAlt: product.heroAlt,
    usagePath: product.usagePath ?? null,
    deviceLimit: product.deviceLimit ?? null,
    purchaseUrl: product.published ? `${DEMO_STORE_URL}/${product.slug}` : null,
  };
  // Look up before writing: an upsert would draw (and waste) an identity value on every run.
  const [existing] = await tx.select({ id: products.id }).from(products).where(eq(products.slug, product.slug));
  let productId: number;
  if (existing) {
    productId = existing.id;
    await tx.update(products).set(values).where(eq(products.id, productId));
  } else {
    const [created] = await tx
      .insert(products)
      .values({ slug: product.slug, ...values })
      .returning({ id: products.id });
    productId = (created as { id: number }).id;
  }

  const categoryLinks = product.categories.map((category, position) => ({
    productId,
    categoryId: categoryIds.get(category) as number,
    position,
  }));
  await tx.insert(productCategories).values(categoryLinks).onConflictDoNothing();
  if (product.tags.length > 0) {
    const tagLinks = product.tags.map((tag, position) => ({ productId, tagId: tagIds.get(tag) as number, position }));
    await tx.insert(productTags).values(tagLinks).onConflictDoNothing();
  }

  const existingReleases = await tx
    .select({ id: releases.id, channel: releases.channel, version: releases.version })
    .from(releases)
    .where(eq(releases.productId, productId));
  for (const release of product.releases) {
    const releaseValues = {
      build: release.version.replace(/[^0-9]/g, "").slice(0, 12) || null,
      notes: release.notes,
      notesEn: release.notes,
      notesKo: release.notesKo ?? null,
      sourceRef: `v${release.version}`,
      artifactFormat: release.artifactFormat,
      minOsVersion: product.platforms.includes("macos") ? "13.0" : null,
      releasedAt: new Date(release.releasedAt),
    };
    const match = existingReleases.find((row) => row.channel === release.channel && row.version === release.version);
    if (match) await tx.update(releases).set(releaseValues).where(eq(releases.id, match.id));
    else {
      await tx
        .insert(releases)
        .values({ productId, version: release.version, channel: release.channel, ...releaseValues });
    }
  }

  await ensureSetupOutputs(tx, productId, product.outputs ?? []);
  await ensureInstallAssets(tx, productId, product.installAssets ?? []);
  if (product.mcp) await ensureMcpServer(tx, accountId, productId, product.mcp);
  // A purchase comes with its order (the billing step's), as a bought product does; the rest are granted here.
  if (product.entitlement && product.entitlement.grantType !== "purchase") {
    await ensureEntitlement(tx, accountId, productId, product.entitlement);
  }
  return productId;
}

async function ensureSetupOutputs(tx: Transaction, productId: number, outputs: NonNullable<DemoProduct["outputs"]>) {
  if (outputs.length === 0) return;
  const existing = await tx
    .select({ title: productSetupOutputs.title })
    .from(productSetupOutputs)
    .where(eq(productSetupOutputs.productId, productId));
  const present = new Set(existing.map((output) => output.title));
  const missing = outputs
    .map((output, position) => ({
      productId,
      position,
      title: output.title,
      categoryLabel: output.categoryLabel,
      summary: output.summary,
      prompt: output.prompt,
      usageGuide: output.usageGuide ?? null,
    }))
    .filter((output) => !present.has(output.title));
  if (missing.length > 0) await tx.insert(productSetupOutputs).values(missing);
}

async function ensureInstallAssets(
  tx: Transaction,
  productId: number,
  assets: NonNullable<DemoProduct["installAssets"]>,
) {
  if (assets.length === 0) return;
  const existing = await tx
    .select({ path: productInstallAssets.path })
    .from(productInstallAssets)
    .where(eq(productInstallAssets.productId, productId));
  const present = new Set(existing.map((asset) => asset.path));
  const missing = assets
    .map((asset, position) => ({ productId, position, ...asset }))
    .filter((asset) => !present.has(asset.path));
  if (missing.length > 0) await tx.insert(productInstallAssets).values(missing);
}

async function ensureMcpServer(
  tx: Transaction,
  accountId: number,
  productId: number,
  mcp: NonNullable<DemoProduct["mcp"]>,
) {
  const [existing] = await tx
    .select({ id: mcpServers.id })
    .from(mcpServers)
    .where(and(eq(mcpServers.accountId, accountId), eq(mcpServers.productId, productId)));
  const [server] = existing
    ? [existing]
    : await tx.insert(mcpServers).values({ accountId, productId, name: mcp.name }).returning({ id: mcpServers.id });
  const mcpServerId = (server as { id: number }).id;
  const tools = await tx.select({ name: mcpTools.name }).from(mcpTools).where(eq(mcpTools.mcpServerId, mcpServerId));
  const present = new Set(tools.map((tool) => tool.name));
  const missing = mcp.tools.filter((name) => !present.has(name));
  if (missing.length > 0) {
    await tx.insert(mcpTools).values(missing.map((name) => ({ mcpServerId, productId, name })));
  }
}

/** The buyer of a product whose update window is over bought it before that window closed. */
function grantedAt(state: NonNullable<DemoProduct["entitlement"]>["state"], now: number): Date {
  if (state === "window-over") return new Date(DEMO_UPDATE_WINDOW_GRANTED);
  return new Date(now - (state === "expired" ? 44 : 120) * DAY_MS);
}

/** One live (not revoked) entitlement of the planned grant type; an existing one is left as it is. */
async function ensureEntitlement(
  tx: Transaction,
  accountId: number,
  productId: number,
  plan: NonNullable<DemoProduct["entitlement"]>,
) {
  const [existing] = await tx
    .select({ id: entitlements.id })
    .from(entitlements)
    .where(
      and(
        eq(entitlements.accountId, accountId),
        eq(entitlements.productId, productId),
        eq(entitlements.grantType, plan.grantType),
        isNull(entitlements.revokedAt),
      ),
    )
    .limit(1);
  if (existing) return;
  const now = Date.now();
  await tx.insert(entitlements).values({
    accountId,
    productId,
    grantType: plan.grantType,
    grantedAt: grantedAt(plan.state, now),
    accessExpiresAt: plan.state === "expired" ? new Date(now - 30 * DAY_MS) : null,
    updatesSupportedUntil: plan.state === "window-over" ? new Date(DEMO_UPDATE_WINDOW_END) : null,
  });
}

export { DEMO_COLLECTOR, seedDemoGallery } from "./design-gallery";
