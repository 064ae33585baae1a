import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import S3rver from "@20minutes/s3rver";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { createFilesystemStore } from "@shelf/server/storage/filesystem";
import { createS3Store } from "@shelf/server/storage/s3";
import { type ArtifactStore, MissingObjectError } from "@shelf/server/storage/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishRelease } from "../routers/products/publish";
import { aria2cArgs, createAccountWithKey, createApiClient, createProduct, grantEntitlement } from "../testing";
import { createTestDelivery } from "../testing/delivery";

/**
 * Both artifact stores against the same expectations: the filesystem store in a folder of its own, and the S3 store
 * against a real S3-compatible server (s3rver) these tests start on 127.0.0.1.
 */
let workDir: string;
let s3: InstanceType<typeof S3rver>;
let s3Endpoint: string;
const stores: Record<string, ArtifactStore> = {};

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-stores-"));
  s3 = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: path.join(workDir, "s3rver"),
    configureBuckets: [{ name: "shelf-artifacts" }],
  });
  const { port } = await s3.run();
  s3Endpoint = `http://127.0.0.1:${port}`;
  stores.filesystem = createFilesystemStore(path.join(workDir, "files"));
  stores.s3 = createS3Store({
    bucket: "shelf-artifacts",
    endpoint: s3Endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    forcePathStyle: true,
    prefix: "shelf/",
  });
});
afterAll(async () => {
  await s3?.close();
  await fs.rm(workDir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function read(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Bytes in 1 MiB chunks, from a generator, as a file or request body would arrive. */
async function* chunked(bytes: Buffer) {
  for (let offset = 0; offset < bytes.length; offset += 1024 * 1024) yield bytes.subarray(offset, offset + 1024 * 1024);
}

for (const name of ["filesystem", "s3"]) {
  describe(`the ${name} store`, () => {
    const store = () => stores[name] as ArtifactStore;

    it("stores a multi-part stream, measuring its size and sha256 on the way, and reads it back whole or by range", async () => {
      const bytes = randomBytes(20 * 1024 * 1024 + 5);
      const stored = await store().put(chunked(bytes), "application/zip");
      expect(stored).toEqual({ key: expect.stringMatching(/^artifacts\//), size: bytes.length, sha256: sha256(bytes) });
      expect(sha256(await read(await store().open(stored.key)))).toBe(sha256(bytes));
      expect(await read(await store().open(stored.key, { start: 10, end: 109 }))).toEqual(bytes.subarray(10, 110));
      const last = await read(await store().open(stored.key, { start: bytes.length - 3, end: bytes.length - 1 }));
      expect(last).toEqual(bytes.subarray(-3));
    });

    it("keeps nothing of a write that fails midway", async () => {
      async function* failing() {
        yield randomBytes(9 * 1024 * 1024);
        throw new Error("the source broke");
      }
      const before = await listObjects(name);
      await expect(store().put(failing(), "application/zip")).rejects.toThrow();
      expect(await listObjects(name)).toEqual(before);
    });

    it("removes an object, after which opening it is a MissingObjectError, and removing it again is no error", async () => {
      const stored = await store().put([Buffer.from("short-lived")], "text/plain");
      await store().remove(stored.key);
      await expect(store().open(stored.key)).rejects.toBeInstanceOf(MissingObjectError);
      await store().remove(stored.key);
    });

    it("says it is ready when it can be written and read", async () => {
      expect(await store().check()).toBe(true);
    });

    it("never opens a key it did not make", async () => {
      await expect(store().open("artifacts/00/../../../etc/passwd")).rejects.toBeInstanceOf(MissingObjectError);
    });
  });
}

describe("readiness", () => {
  it("is false for a bucket that does not exist and a folder that cannot be made", async () => {
    const missingBucket = createS3Store({
      bucket: "no-such-bucket",
      endpoint: s3Endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      forcePathStyle: true,
      prefix: "",
    });
    expect(await missingBucket.check()).toBe(false);
    const blocked = path.join(workDir, "a-file");
    await fs.writeFile(blocked, "not a folder");
    expect(await createFilesystemStore(path.join(blocked, "artifacts")).check()).toBe(false);
  });
});

/** Every object a store holds, by listing what it wrote where it writes. */
async function listObjects(name: string): Promise<string[]> {
  const dir = name === "filesystem" ? path.join(workDir, "files") : path.join(workDir, "s3rver");
  const entries = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((entry) => /[0-9a-f-]{36}/.test(entry) && !entry.endsWith("/")).sort();
}

describe("presigned object URLs (S3)", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(() => testDb.drop());

  it("are what install plans hand out: no API key, the plan's bytes, ranges by aria2c, tampering refused", async () => {
    const delivery = await createTestDelivery({ store: stores.s3 });
    const request = createApiClient(testDb.db, { delivery });
    const { account, key } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    await grantEntitlement(testDb.db, account.id, product.id);
    const bytes = randomBytes(6 * 1024 * 1024 + 11);
    await publishRelease(
      testDb.db,
      delivery,
      { productId: product.id, version: "1.0.0", filename: "tool-1.0.0.zip" },
      Readable.from(chunked(bytes)),
    );
    const plan = (await request(`/api/products/${product.id}/install`, { key })).body.data;
    expect(plan.sha256).toBe(sha256(bytes));
    expect(plan.download_url.startsWith(`${s3Endpoint}/shelf-artifacts/shelf/artifacts/`)).toBe(true);
    expect(plan.download_url).toContain("X-Amz-Expires=600");
    expect(plan.download_url).not.toContain(key);

    const whole = await fetch(plan.download_url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-disposition")).toBe('attachment; filename="tool-1.0.0.zip"');
    expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(plan.sha256);
    const ranged = await fetch(plan.download_url, { headers: { range: "bytes=100-199" } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(bytes.subarray(100, 200));

    const out = path.join(workDir, "aria2.zip");
    await promisify(execFile)("aria2c", aria2cArgs(plan.download_url, workDir, "aria2.zip"));
    expect(sha256(await fs.readFile(out))).toBe(plan.sha256);

    const tampered = plan.download_url.replace(/X-Amz-Signature=(.)/, (_: string, c: string) =>
      c === "a" ? "X-Amz-Signature=b" : "X-Amz-Signature=a",
    );
    expect((await fetch(tampered)).status).toBe(403);
  });
});
