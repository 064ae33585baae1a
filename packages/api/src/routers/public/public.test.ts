import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { SetupError } from "@shelf/db/env";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../../account-api";
import { readApiEnv } from "../../env";
import {
  createApiClient,
  createProduct,
  createRelease,
  TEST_BASE_URL,
  testAccountServices,
  testLog,
} from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { publishRelease } from "../products/publish";
import { createLineage } from "./admin-service";
import { DEMO_DISCLOSURE, loadDisclosure } from "./disclosure";
import { DownloadPipelineData, LineageData, LineagesData, PublicDisclosureData } from "./schemas";

const suite = withApiSuite({ ownDelivery: true });
const { testDb, request } = suite;

const publish = (
  productId: number,
  version: string,
  values: Parameters<typeof publishRelease>[2] extends infer I ? Partial<I> : never = {},
) =>
  publishRelease(
    testDb.db,
    suite.delivery,
    { productId, version, filename: `app-${version}.zip`, ...values },
    Readable.from([Buffer.from(version)]),
  );

describe("GET /api/downloads/pipeline", () => {
  it("lists, per channel, each published product's newest release, its platforms and checklist, without a key", async () => {
    const ready = await createProduct(testDb.db, {
      name: "AAA Ready",
      slug: `ready-${Date.now()}`,
      platforms: ["macos"],
    });
    const unsigned = await createProduct(testDb.db, { name: "AAB Unsigned" });
    const hidden = await createProduct(testDb.db, { name: "AAC Hidden", published: false });
    await publish(ready.id, "1.0.0", {
      notesEn: "First",
      notesKo: "처음",
      minOsVersion: "13.0",
      platform: "macos-arm64",
    });
    await publish(ready.id, "1.1.0", {
      notesEn: "Second",
      notesKo: "둘째",
      minOsVersion: "13.0",
      platform: "macos-arm64",
    });
    await publish(ready.id, "2.0.0-beta.1", { channel: "beta", notesEn: "Beta" });
    await createRelease(testDb.db, unsigned.id, { version: "0.9.0" });
    await publish(hidden.id, "1.0.0");

    const response = await request("/api/downloads/pipeline");
    expect(response.status).toBe(200);
    expect(contractMismatch(DownloadPipelineData, response.text)).toBeNull();
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    expect(response.headers.get("etag")).toMatch(/^W\//);
    const channel = (name: string) =>
      response.body.channels.find((entry: { channel: string }) => entry.channel === name);
    const stable = channel("stable");
    expect(stable.products.map((product: { name: string }) => product.name)).toEqual(
      expect.arrayContaining(["AAA Ready", "AAB Unsigned"]),
    );
    expect(stable.products.map((product: { name: string }) => product.name)).not.toContain("AAC Hidden");
    const readyEntry = stable.products.find((product: { product_id: number }) => product.product_id === ready.id);
    expect(readyEntry).toMatchObject({
      version: "1.1.0",
      platforms: ["macos-arm64"],
      checklist: { artifact: true, signature: true, notes_en: true, notes_ko: true, min_os_version: true },
      ready: true,
    });
    const unsignedEntry = stable.products.find((product: { product_id: number }) => product.product_id === unsigned.id);
    expect(unsignedEntry).toMatchObject({
      version: "0.9.0",
      ready: false,
      checklist: { artifact: false, signature: false },
    });
    expect(stable.platforms).toContain("macos-arm64");
    expect(channel("beta").products).toEqual([
      expect.objectContaining({ product_id: ready.id, version: "2.0.0-beta.1", ready: false }),
    ]);
    const again = await request("/api/downloads/pipeline", {
      headers: { "if-none-match": response.headers.get("etag") as string },
    });
    expect(again.status).toBe(304);
  });
});

describe("lineages", () => {
  it("lists the active lineages and answers one with its published products; an unknown slug is 404", async () => {
    const notes = await createProduct(testDb.db, { name: "Quill Notes", slug: `quill-notes-${Date.now()}` });
    const minutes = await createProduct(testDb.db, { name: "Quill Minutes" });
    const draft = await createProduct(testDb.db, { name: "Quill Draft", published: false });
    await publish(notes.id, "3.1.0");
    await createLineage(testDb.db, {
      slug: "quill",
      name: "Quill",
      description: "Writing apps",
      productIds: [notes.id, minutes.id, draft.id],
    });
    await createLineage(testDb.db, { slug: "retired", name: "Retired", active: false });

    const list = await request("/api/lineages");
    expect(contractMismatch(LineagesData, list.text)).toBeNull();
    expect(list.body.lineages).toContainEqual({
      slug: "quill",
      name: "Quill",
      description: "Writing apps",
      product_count: 2,
    });
    expect(list.body.lineages.map((lineage: { slug: string }) => lineage.slug)).not.toContain("retired");

    const one = await request("/api/lineages/quill");
    expect(one.status).toBe(200);
    expect(contractMismatch(LineageData, one.text)).toBeNull();
    expect(one.body.lineage.products.map((product: { name: string }) => product.name)).toEqual([
      "Quill Minutes",
      "Quill Notes",
    ]);
    expect(one.body.lineage.products[1]).toMatchObject({ latest_version: "3.1.0", currency: "USD" });
    for (const slug of ["retired", "nothing-here", "Quill", "%E2%9C%93"]) {
      const missing = await request(`/api/lineages/${slug}`);
      expect(missing.status, slug).toBe(404);
      expect(missing.body.error).toBe("not_found");
    }
    await expect(createLineage(testDb.db, { slug: "quill", name: "Again" })).rejects.toThrow(/already exists/);
    await expect(createLineage(testDb.db, { slug: "lost", name: "Lost", productIds: [2_000_000_000] })).rejects.toThrow(
      /No product/,
    );
  });
});

describe("GET /api/public/disclosure", () => {
  it("answers the configured disclosure in Korean and English, cacheable, and 404 where none is configured", async () => {
    const response = await request("/api/public/disclosure");
    expect(response.status).toBe(200);
    expect(contractMismatch(PublicDisclosureData, response.text)).toBeNull();
    expect(response.body).toEqual(DEMO_DISCLOSURE);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");

    const bare = createApiClient(testDb.db, {
      edge: createAccountApiEdge({
        ...(await testAccountServices()),
        db: testDb.db,
        baseUrl: TEST_BASE_URL,
        log: testLog,
        rateLimiter: createRateLimiter({ points: 1000 }),
      }),
    });
    const none = await bare("/api/public/disclosure");
    expect(none.status).toBe(404);
    expect(none.body.message).toMatch(/SHELF_DISCLOSURE_FILE/);
  });

  it("loads the disclosure from a file or the environment, and refuses an incomplete one at start in one line", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-disclosure-"));
    try {
      const file = path.join(dir, "disclosure.json");
      await fs.writeFile(file, JSON.stringify(DEMO_DISCLOSURE));
      expect(await loadDisclosure(readApiEnv({ SHELF_DISCLOSURE_FILE: file } as unknown as NodeJS.ProcessEnv))).toEqual(
        DEMO_DISCLOSURE,
      );
      expect(
        await loadDisclosure(
          readApiEnv({ SHELF_DISCLOSURE: JSON.stringify(DEMO_DISCLOSURE) } as unknown as NodeJS.ProcessEnv),
        ),
      ).toEqual(DEMO_DISCLOSURE);
      expect(await loadDisclosure(readApiEnv({} as unknown as NodeJS.ProcessEnv))).toBeUndefined();
      const { phone: _, ...incomplete } = DEMO_DISCLOSURE.en;
      for (const [env, message] of [
        [{ SHELF_DISCLOSURE: "{" }, /is not JSON/],
        [{ SHELF_DISCLOSURE: JSON.stringify({ ...DEMO_DISCLOSURE, en: incomplete }) }, /en\.phone/],
        [{ SHELF_DISCLOSURE_FILE: path.join(dir, "missing.json") }, /ENOENT/],
      ] as const) {
        const error = await loadDisclosure(readApiEnv(env as unknown as NodeJS.ProcessEnv)).catch(
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(SetupError);
        expect((error as Error).message).toMatch(message);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
