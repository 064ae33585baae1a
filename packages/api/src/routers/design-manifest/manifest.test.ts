import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createDesignToken } from "../../auth/design-token-admin";
import { readApiEnv } from "../../env";
import { createApiClient, createTestDesignEdge, TEST_BASE_URL } from "../../testing";
import { recordSecret } from "../../testing/secrets";
import { CollectRunData } from "../design-collect/schemas";
import { writeVersion } from "../design-docs/service";

/** The manifest and the agent skill package, over HTTP, checked by implementations other than the server's. */
let testDb: TestDatabase;
let request: ReturnType<typeof createApiClient>;
let dir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  request = createApiClient(testDb.db, { edge: createTestDesignEdge(testDb.db) });
  dir = mkdtempSync(path.join(tmpdir(), "shelf-skill-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await testDb.drop();
});

async function token(name: string, roles: ("collect" | "read" | "write" | "review")[]) {
  const created = await createDesignToken(testDb.db, { name, roles }, "shelf");
  recordSecret(created.token);
  return created.token;
}

/** Python's tarfile and hashlib: every member's path, size and sha256, and the archive's own sha256. */
function pythonDigests(archive: string) {
  const script = `
import hashlib, json, sys, tarfile
out = {"archive": hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest(), "files": []}
with tarfile.open(sys.argv[1], "r:gz") as tar:
    for member in tar.getmembers():
        assert member.isfile(), member.name
        data = tar.extractfile(member).read()
        out["files"].append({"path": member.name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
print(json.dumps(out))
`;
  return JSON.parse(execFileSync("python3", ["-c", script, archive], { encoding: "utf8" }));
}

describe("the agent skill package", () => {
  it("is listed at the well-known index without a token, and its archive's digests hold for other readers", async () => {
    const index = await request("/.well-known/agent-skills/index.json");
    expect(index.status, index.text).toBe(200);
    expect(index.body.$schema).toBe("https://schemas.agentskills.io/discovery/0.2.0/schema.json");
    expect(index.body.skills).toHaveLength(1);
    const [entry] = index.body.skills;
    expect(entry).toMatchObject({ name: "shelf-design", type: "archive" });

    const archive = await request(new URL(entry.url, `${TEST_BASE_URL}/.well-known/agent-skills/`).pathname);
    expect(archive.status).toBe(200);
    expect(archive.headers.get("content-type")).toBe("application/gzip");
    const file = path.join(dir, "shelf-design.tar.gz");
    writeFileSync(file, archive.bytes);
    const python = pythonDigests(file);
    expect(`sha256:${python.archive}`).toBe(entry.digest);
    expect(execFileSync("openssl", ["dgst", "-sha256", "-r", file], { encoding: "utf8" }).split(" ")[0]).toBe(
      python.archive,
    );

    // The manifest states the same archive and, file by file, what Python read out of it.
    const reader = await token("reader", ["read"]);
    const manifest = await request("/api/agent/manifest", { key: reader });
    expect(manifest.status, manifest.text).toBe(200);
    expect(manifest.body.skill.archive).toEqual({
      url: `${TEST_BASE_URL}/.well-known/agent-skills/shelf-design.tar.gz`,
      media_type: "application/gzip",
      size: archive.bytes.length,
      sha256: python.archive,
    });
    expect(manifest.body.skill.files).toEqual(python.files);
    expect(manifest.body.skill.index_url).toBe(`${TEST_BASE_URL}/.well-known/agent-skills/index.json`);
    expect(manifest.body.openapi_url).toBe(`${TEST_BASE_URL}/api/openapi.json`);

    // GNU tar unpacks it: SKILL.md at the root, its front matter (a real YAML parser) names the skill, and every
    // file it links to is in the package.
    const unpacked = path.join(dir, "unpacked");
    execFileSync("mkdir", ["-p", unpacked]);
    execFileSync("tar", ["-xzf", file, "-C", unpacked]);
    const skill = readFileSync(path.join(unpacked, "SKILL.md"), "utf8");
    const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(skill)?.[1] ?? "") as Record<string, string>;
    expect(front).toEqual({ name: "shelf-design", description: entry.description });
    expect(front.description?.length).toBeLessThanOrEqual(1024);
    expect(manifest.body.skill).toMatchObject({ name: front.name, description: front.description });
    const links = [...skill.matchAll(/\]\(([^)#]+)\)/g)].map((match) => match[1]);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(readFileSync(path.join(unpacked, link as string)).length).toBeGreaterThan(0);
    const schema = JSON.parse(readFileSync(path.join(unpacked, "references/capture-meta.schema.json"), "utf8"));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");

    // What the skill tells agents is what the host does: the collector it points to exists, the rate limit it names
    // is the deployment's default, and the meta field and status field it relies on are the published ones.
    const said = skill.replace(/\s+/g, " ");
    expect(said).toContain("npm run design:collect");
    const root = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../../../../package.json"), "utf8"));
    expect(root.scripts["design:collect"]).toBeDefined();
    const limit = /`SHELF_RATE_LIMIT_PER_MINUTE` requests a minute \((\d+) unless/.exec(said)?.[1];
    expect(Number(limit)).toBe(readApiEnv({ NODE_ENV: "test" }).SHELF_RATE_LIMIT_PER_MINUTE);
    expect(said).toMatch(/`Retry-After`[^.]*resend the very same upload/);
    expect(said).toContain('`"walk": true`');
    expect(schema.$defs.CaptureMeta.properties.walk).toMatchObject({ type: "boolean" });
    expect(said).toContain("its `preview` says what the replay would add, replace and retire");
    expect(CollectRunData.shape.preview).toBeDefined();
    const collect = readFileSync(path.join(unpacked, "references/collect.md"), "utf8");
    expect(collect).toContain("## Pacing");
  });

  it("answers conditional and range requests for the archive", async () => {
    const whole = await request("/.well-known/agent-skills/shelf-design.tar.gz");
    const etag = whole.headers.get("etag") as string;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(
      (await request("/.well-known/agent-skills/shelf-design.tar.gz", { headers: { "if-none-match": etag } })).status,
    ).toBe(304);
    const part = await request("/.well-known/agent-skills/shelf-design.tar.gz", { headers: { range: "bytes=0-9" } });
    expect(part.status).toBe(206);
    expect(part.bytes).toEqual(whole.bytes.subarray(0, 10));
  });
});

describe("the manifest", () => {
  it("pages the documents with the design host's cursor contract", async () => {
    const writerToken = await createDesignToken(testDb.db, { name: "writer", roles: ["write"] }, "shelf");
    recordSecret(writerToken.token);
    const writer = { tokenId: writerToken.record.id, name: "writer" };
    for (const slug of ["alpha-doc", "beta-doc", "gamma-doc"]) {
      await writeVersion(testDb.db, writer, { slug, body: `# ${slug}\n\nText.`, base_version: 0 });
    }
    const reader = await token("pager", ["read"]);
    const first = await request("/api/agent/manifest?limit=2", { key: reader });
    expect(first.body.items.map((item: { slug: string }) => item.slug)).toEqual(["alpha-doc", "beta-doc"]);
    expect(first.body.items[0]).toEqual({
      slug: "alpha-doc",
      title: "alpha-doc",
      current_version: null,
      latest_version: 1,
      updated_at: expect.any(String),
    });
    const rest = await request(`/api/agent/manifest?limit=2&cursor=${first.body.next_cursor}`, { key: reader });
    expect(rest.body).toMatchObject({ items: [expect.objectContaining({ slug: "gamma-doc" })], next_cursor: null });
    expect(rest.body.skill.archive.sha256).toBe(first.body.skill.archive.sha256);
  });

  it("needs the read role", async () => {
    expect((await request("/api/agent/manifest")).body.error).toBe("missing_api_key");
    const collector = await token("collector", ["collect"]);
    const refused = await request("/api/agent/manifest", { key: collector });
    expect({ status: refused.status, error: refused.body.error }).toEqual({
      status: 403,
      error: "missing_design_role",
    });
  });
});
