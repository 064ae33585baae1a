import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDesignToken } from "../../auth/design-token-admin";
import { designRouter } from "../../design-api";
import { collectRoutes } from "../../edge/routes";
import { createApiClient, createTestDesignEdge } from "../../testing";
import { recordSecret } from "../../testing/secrets";

/** The design host's agent API over HTTP: real Requests through its edge, design agent tokens only. */
let testDb: TestDatabase;
let request: ReturnType<typeof createApiClient>;
let account: ReturnType<typeof createApiClient>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const edge = createTestDesignEdge(testDb.db);
  request = createApiClient(testDb.db, { edge });
  account = createApiClient(testDb.db);
});
afterAll(() => testDb.drop());

type Role = "collect" | "read" | "write" | "review";

async function token(name: string, roles: Role[]) {
  const created = await createDesignToken(testDb.db, { name, roles }, "shelf");
  recordSecret(created.token);
  return { ...created, name };
}

const allRoutes = collectRoutes(designRouter);

describe("the design agent API's credentials", () => {
  it("is refused by the account API: a design token is no account key", async () => {
    const { token: designToken } = await token("stranger", ["read"]);
    const answer = await account("/api/library", { key: designToken });
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 401, error: "invalid_api_key" });
  });

  it("publishes its OpenAPI document with every route", async () => {
    const document = (await request("/api/openapi.json")).body;
    expect(document.openapi).toMatch(/^3\.1/);
    expect(Object.keys(document.components.securitySchemes)).toEqual(["design_agent_token"]);
    for (const route of allRoutes) {
      const operation = document.paths[route.documentPath]?.[route.method.toLowerCase()];
      expect(operation, route.path).toBeDefined();
      if (route.meta.ability === "public") expect(operation.security, route.path).toEqual([]);
      else
        expect([operation.security, operation["x-role"]], route.path).toEqual([
          [{ design_agent_token: [] }],
          route.meta.role,
        ]);
    }
  });
});

describe("design documents over HTTP", () => {
  it("runs the write, rebase, submit, review and read cycle an agent follows", async () => {
    const writer = await token("writer", ["read", "write"]);
    const other = await token("other-writer", ["write"]);
    const reviewer = await token("reviewer", ["read", "review"]);
    const slug = `typography-${Date.now().toString(36)}`;
    const write = (key: string, body: unknown) =>
      request(`/api/agent/docs/${slug}/versions`, { method: "POST", key, body });

    const first = await write(writer.token, { body: "# Typography\n\nOne scale.", base_version: 0 });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      document: { slug, title: "Typography", current_version: null, latest_version: 1 },
      version: { number: 1, base_version: 0, status: "draft", author: "writer" },
    });
    await write(other.token, { body: "# Typography\n\nTwo scales.", base_version: 1 });
    const stale = await write(writer.token, { body: "# Typography\n\nMine.", base_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: "stale_base_version", latest_version: 2, latest_author: "other-writer" });
    const rebased = await write(writer.token, {
      body: "# Typography\n\nMine, rebased.",
      base_version: stale.body.latest_version,
    });
    expect(rebased.body.version.number).toBe(3);

    const submit = (number: number) =>
      request(`/api/agent/docs/${slug}/versions/${number}/submit`, { method: "POST", key: writer.token });
    expect((await submit(3)).body.version.status).toBe("submitted");
    expect((await submit(3)).status).toBe(409);
    const pending = await request("/api/agent/reviews/pending?limit=100", { key: reviewer.token });
    expect(pending.body.items).toContainEqual(
      expect.objectContaining({ slug, version: expect.objectContaining({ number: 3 }) }),
    );

    const review = (key: string, body: unknown) => request("/api/agent/reviews", { method: "POST", key, body });
    const own = await token("writer-reviewer", ["write", "review"]);
    await write(own.token, { body: "# Typography\n\nOwn.", base_version: 3 });
    await request(`/api/agent/docs/${slug}/versions/4/submit`, { method: "POST", key: own.token });
    expect((await review(own.token, { slug, version: 4, verdict: "approved", reason: "mine" })).body.error).toBe(
      "review_of_own_version",
    );
    const approved = await review(reviewer.token, { slug, version: 3, verdict: "approved", reason: "Readable." });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.version.review).toMatchObject({ verdict: "approved", reviewer: "reviewer" });

    const current = await request(`/api/agent/docs/${slug}`, { key: reviewer.token });
    expect(current.body).toMatchObject({
      document: { current_version: 3, latest_version: 4, pending_versions: [4] },
      version: { number: 3, body: "# Typography\n\nMine, rebased.", status: "approved" },
    });
    expect((await request(`/api/agent/docs/${slug}?version=1`, { key: writer.token })).body.version.body).toContain(
      "One scale",
    );
    const page = await request(`/api/agent/docs/${slug}/versions?limit=3`, { key: writer.token });
    expect(page.body.items.map((version: { number: number }) => version.number)).toEqual([4, 3, 2]);
    const rest = await request(`/api/agent/docs/${slug}/versions?limit=3&cursor=${page.body.next_cursor}`, {
      key: writer.token,
    });
    expect(rest.body).toMatchObject({ items: [expect.objectContaining({ number: 1 })], next_cursor: null });
  });

  it("refuses bad input with 422 field errors and unknown documents with 404", async () => {
    const writer = await token("strict", ["read", "write", "review"]);
    const post = (path: string, body: unknown) => request(path, { method: "POST", key: writer.token, body });
    for (const body of [
      { body: "x", base_version: null },
      { body: "x", base_version: "" },
      { body: "x", base_version: "1" },
      { body: "x", base_version: -1 },
      { body: "", base_version: 0 },
      { body: null, base_version: 0 },
      { base_version: 0 },
    ]) {
      const answer = await post("/api/agent/docs/valid-slug/versions", body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.errors).toBeDefined();
    }
    expect(
      (await post("/api/agent/docs/Not_A_Slug/versions", { body: "x", base_version: 0 })).body.errors.slug,
    ).toBeDefined();
    expect(
      (await post("/api/agent/reviews", { slug: "valid-slug", version: 1, verdict: "maybe", reason: "x" })).status,
    ).toBe(422);
    expect(
      (await post("/api/agent/reviews", { slug: "valid-slug", version: 1, verdict: "approved", reason: " " })).status,
    ).toBe(422);
    expect((await request("/api/agent/docs/nothing-here", { key: writer.token })).status).toBe(404);
    expect((await request("/api/agent/docs/nothing-here/versions?cursor=abc", { key: writer.token })).status).toBe(422);
    expect((await request("/api/agent/reviews/pending?limit=101", { key: writer.token })).status).toBe(422);
    // A number past a 32-bit row id names no row: 422 like any bad cursor, never a database error.
    const all = await createDesignToken(testDb.db, { name: "pager", roles: ["read", "review"] }, "shelf");
    recordSecret(all.token);
    for (const cursor of ["2147483647", "2147483648", "6732830127", "9999999999"]) {
      for (const list of ["/api/agent/manifest", "/api/agent/reviews/pending", "/api/agent/docs/valid-slug/versions"]) {
        const answer = await request(`${list}?cursor=${cursor}`, { key: all.token });
        if (cursor === "2147483647") expect(answer.status, `${list} ${cursor}`).not.toBe(422);
        else
          expect([answer.status, answer.body.errors], `${list} ${cursor}`).toEqual([
            422,
            { cursor: ["must be the next_cursor of the page before"] },
          ]);
      }
    }
  });
});
