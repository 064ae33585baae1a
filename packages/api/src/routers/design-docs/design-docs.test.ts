import { schema } from "@shelf/db";
import { useTestDatabase } from "@shelf/db/testing";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { looksLikeApiKey } from "../../auth/api-key";
import { looksLikeDesignToken, resolveDesignToken } from "../../auth/design-token";
import { createDesignToken, listDesignTokens, revokeDesignToken } from "../../auth/design-token-admin";
import { DomainError } from "../../errors";
import {
  type DesignAgent,
  listVersions,
  pendingReviews,
  readDocument,
  reviewVersion,
  submitVersion,
  writeVersion,
} from "./service";

const testDb = useTestDatabase();

let slugs = 0;
const newSlug = () => `guide-${Date.now().toString(36)}-${++slugs}`;

async function agent(name: string, roles: ("collect" | "read" | "write" | "review")[] = ["write", "review", "read"]) {
  const { record } = await createDesignToken(testDb.db, { name, roles }, "shelf");
  return { tokenId: record.id, name } satisfies DesignAgent;
}

/** The DomainError a call fails with: its code and extra fields. */
async function refusal(work: Promise<unknown>) {
  const error = await work.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DomainError);
  const domain = error as DomainError;
  return { code: domain.code, status: domain.status, message: domain.message, ...domain.details };
}

describe("design agent tokens", () => {
  it("are shown once, kept as SHA-256, never shaped like an account key, and end when revoked or expired", async () => {
    const { token, record } = await createDesignToken(
      testDb.db,
      { name: "collector", roles: ["read", "collect"] },
      "shelf",
    );
    expect(token).toMatch(/^shelf_design_[1-9A-HJ-NP-Za-km-z]{32}$/);
    expect(looksLikeDesignToken(token)).toBe(true);
    expect(looksLikeApiKey(token)).toBe(false);
    expect(record).toMatchObject({ name: "collector", prefix: token.slice(0, 14), roles: ["collect", "read"] });
    const [row] = await testDb.db.select().from(schema.designTokens).where(eq(schema.designTokens.id, record.id));
    expect(JSON.stringify(row)).not.toContain(token.slice(14));

    const resolved = await resolveDesignToken(testDb.db, token);
    expect(resolved).toMatchObject({
      status: "valid",
      caller: { type: "design_token", tokenId: record.id, name: "collector" },
    });
    expect(
      resolved.status === "valid" && resolved.caller.type === "design_token" && [...resolved.caller.roles],
    ).toEqual(["collect", "read"]);
    expect((await listDesignTokens(testDb.db)).find((listed) => listed.id === record.id)?.last_used_at).not.toBeNull();

    await revokeDesignToken(testDb.db, record.id);
    expect(await resolveDesignToken(testDb.db, token)).toEqual({ status: "invalid" });
    expect((await refusal(revokeDesignToken(testDb.db, record.id))).code).toBe("not_found");

    const expiring = await createDesignToken(
      testDb.db,
      { name: "brief", roles: ["read"], expiresAt: new Date(Date.now() + 60_000) },
      "shelf",
    );
    await testDb.db
      .update(schema.designTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.designTokens.id, expiring.record.id));
    expect(await resolveDesignToken(testDb.db, expiring.token)).toEqual({ status: "invalid" });
    await expect(createDesignToken(testDb.db, { name: "none", roles: [] }, "shelf")).rejects.toThrow();
    await expect(
      createDesignToken(testDb.db, { name: "past", roles: ["read"], expiresAt: new Date(0) }, "shelf"),
    ).rejects.toThrow();
  });
});

describe("design documents", () => {
  it("writes version N+1 on base N and refuses a stale base, naming the newest version and its author", async () => {
    const slug = newSlug();
    const ada = await agent("ada");
    const first = await writeVersion(testDb.db, ada, { slug, body: "# Buttons\n\nPrimary first.", base_version: 0 });
    expect(first.version).toMatchObject({ number: 1, base_version: 0, status: "draft", author: "ada", review: null });
    expect(first.document).toMatchObject({
      slug,
      title: "Buttons",
      current_version: null,
      latest_version: 1,
      pending_versions: [],
    });
    const second = await writeVersion(testDb.db, ada, {
      slug,
      body: "# Buttons\n\nOne primary per view.",
      base_version: 1,
    });
    expect(second.version.number).toBe(2);
    expect(
      await refusal(writeVersion(testDb.db, await agent("bob"), { slug, body: "stale", base_version: 1 })),
    ).toMatchObject({
      code: "stale_base_version",
      status: 409,
      latest_version: 2,
      latest_author: "ada",
    });
    expect(await refusal(writeVersion(testDb.db, ada, { slug: newSlug(), body: "x", base_version: 3 }))).toMatchObject({
      code: "stale_base_version",
      latest_version: 0,
    });
  });

  it("lets exactly one of 12 parallel writers on one base win; the rest are told the winner", async () => {
    const slug = newSlug();
    const ada = await agent("ada");
    await writeVersion(testDb.db, ada, { slug, body: "v1", base_version: 0 });
    // Every new version takes 30 ms to write (a trigger of this test's database), so the writers overlap for sure:
    // without the document lock each would read version 1 as the newest before any other had committed.
    await testDb.db.execute(sql`create function slow_version() returns trigger language plpgsql as
      $$ begin perform pg_sleep(0.03); return new; end $$`);
    await testDb.db.execute(
      sql`create trigger slow_version before insert on design_document_versions for each row execute function slow_version()`,
    );
    const writers = await Promise.all(Array.from({ length: 12 }, (_, index) => agent(`writer-${index}`)));
    const outcomes = await Promise.allSettled(
      writers.map((writer) => writeVersion(testDb.db, writer, { slug, body: `by ${writer.name}`, base_version: 1 })),
    ).finally(async () => {
      await testDb.db.execute(sql`drop trigger slow_version on design_document_versions`);
      await testDb.db.execute(sql`drop function slow_version`);
    });
    const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const lost = outcomes
      .filter((outcome) => outcome.status === "rejected")
      .map((outcome) => outcome.reason as DomainError);
    expect(won).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof writeVersion>>>).value.version.author;
    expect(lost.map((error) => [error.code, error.details?.latest_version, error.details?.latest_author])).toEqual(
      Array.from({ length: 11 }, () => ["stale_base_version", 2, winner]),
    );
    expect((await listVersions(testDb.db, slug, {})).items.map((version) => version.number)).toEqual([2, 1]);
  });

  it("submits a draft once, and reviews a submitted version once, by another agent, binding to that version only", async () => {
    const slug = newSlug();
    const writer = await agent("writer");
    const reviewer = await agent("reviewer");
    await writeVersion(testDb.db, writer, { slug, body: "# Colors", base_version: 0 });
    expect(
      (await refusal(reviewVersion(testDb.db, reviewer, { slug, version: 1, verdict: "approved", reason: "ok" }))).code,
    ).toBe("conflict");
    const submitted = await submitVersion(testDb.db, slug, 1);
    expect(submitted.version).toMatchObject({ status: "submitted", submitted_at: expect.any(String) });
    expect(submitted.document.pending_versions).toEqual([1]);
    expect(await refusal(submitVersion(testDb.db, slug, 1))).toMatchObject({ code: "conflict", status: 409 });
    expect((await refusal(submitVersion(testDb.db, slug, 9))).code).toBe("not_found");
    expect((await refusal(submitVersion(testDb.db, "no-such-doc", 1))).code).toBe("not_found");

    expect(
      await refusal(reviewVersion(testDb.db, writer, { slug, version: 1, verdict: "approved", reason: "mine" })),
    ).toMatchObject({
      code: "review_of_own_version",
      status: 403,
    });
    // A second token issued under the writer's name is the same agent.
    const rotated = await agent(writer.name);
    expect(rotated.tokenId).not.toBe(writer.tokenId);
    expect(
      await refusal(reviewVersion(testDb.db, rotated, { slug, version: 1, verdict: "approved", reason: "mine too" })),
    ).toMatchObject({ code: "review_of_own_version", status: 403 });
    const approved = await reviewVersion(testDb.db, reviewer, {
      slug,
      version: 1,
      verdict: "approved",
      reason: "Clear.",
    });
    expect(approved.version).toMatchObject({
      status: "approved",
      review: { verdict: "approved", reason: "Clear.", reviewer: "reviewer" },
    });
    expect(approved.document).toMatchObject({ current_version: 1, latest_version: 1, pending_versions: [] });
    expect(
      (
        await refusal(
          reviewVersion(testDb.db, await agent("third"), { slug, version: 1, verdict: "rejected", reason: "late" }),
        )
      ).code,
    ).toBe("conflict");

    // A newer version waits for its own verdict: the approval of version 1 does not carry to it.
    await writeVersion(testDb.db, writer, { slug, body: "# Colors\n\nDarker.", base_version: 1 });
    await submitVersion(testDb.db, slug, 2);
    const current = await readDocument(testDb.db, slug);
    expect(current.version).toMatchObject({ number: 1, body: "# Colors", status: "approved" });
    expect(current.document).toMatchObject({ current_version: 1, latest_version: 2, pending_versions: [2] });
    expect((await readDocument(testDb.db, slug, 2)).version).toMatchObject({
      number: 2,
      status: "submitted",
      review: null,
    });
    await reviewVersion(testDb.db, reviewer, { slug, version: 2, verdict: "changes_requested", reason: "Contrast." });
    expect((await readDocument(testDb.db, slug)).version.number).toBe(1);
  });

  it("reads the current version only once one is approved, and any version by number", async () => {
    const slug = newSlug();
    await writeVersion(testDb.db, await agent("w"), { slug, body: "draft", base_version: 0 });
    expect(await refusal(readDocument(testDb.db, slug))).toMatchObject({ code: "not_found", latest_version: 1 });
    expect((await readDocument(testDb.db, slug, 1)).version.body).toBe("draft");
    expect((await refusal(readDocument(testDb.db, slug, 2))).code).toBe("not_found");
    expect((await refusal(readDocument(testDb.db, newSlug()))).code).toBe("not_found");
  });

  it("pages versions and pending reviews by cursor, never skipping or repeating while versions are added", async () => {
    const slug = newSlug();
    const writer = await agent("pager");
    for (let number = 1; number <= 5; number++) {
      await writeVersion(testDb.db, writer, { slug, body: `v${number}`, base_version: number - 1 });
    }
    const first = await listVersions(testDb.db, slug, { limit: 2 });
    expect(first.items.map((version) => version.number)).toEqual([5, 4]);
    await writeVersion(testDb.db, writer, { slug, body: "v6", base_version: 5 });
    const second = await listVersions(testDb.db, slug, { limit: 2, cursor: first.next_cursor ?? undefined });
    expect(second.items.map((version) => version.number)).toEqual([3, 2]);
    const third = await listVersions(testDb.db, slug, { limit: 2, cursor: second.next_cursor ?? undefined });
    expect(third).toEqual({ items: [expect.objectContaining({ number: 1 })], next_cursor: null });

    for (const number of [1, 2, 3]) await submitVersion(testDb.db, slug, number);
    const pending: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await pendingReviews(testDb.db, { limit: 1, cursor });
      pending.push(...page.items.filter((item) => item.slug === slug).map((item) => item.version.number));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(pending).toEqual([1, 2, 3]);
  });
});
