import { schema } from "@shelf/db";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Delivery } from "../../delivery";
import { GALLERY_LOCK } from "../../design-gallery/replay";
import { createTestDelivery } from "../../testing/delivery";
import { openRun, putCapture, readRun } from "./service";
import { resumeStaleReplays, submitRun } from "./submit";
import { handMadePng } from "./test-images";

/** Submit answers without waiting past its bound for a long replay, and a replay whose process stopped is resumed. */
let testDb: TestDatabase;
let files: Delivery;
const agent = { tokenId: null, name: "resume-collector" };

beforeAll(async () => {
  testDb = await createTestDatabase();
  files = await createTestDelivery();
});
afterAll(() => testDb.drop());

async function runWithCapture(page: string) {
  const run = await openRun(testDb.db, agent, { apps: null, viewports: ["desktop"], langs: ["en"] });
  await putCapture(testDb.db, files.store, agent, {
    run: run.id,
    key: page.padEnd(40, "x").slice(0, 40),
    url: `https://accounts.example${page}`,
    viewport: "desktop",
    lang: "en",
    auth: false,
    outcome: "ok",
    meta: { app: "accounts", page },
    image: handMadePng(4, 3),
  });
  return run.id;
}

const statusOf = async (run: number) => (await readRun(testDb.db, agent, run)).status;

describe("a replay that outlasts submit", () => {
  it("answers the run replaying, then the replay ends on its own and the status follows", async () => {
    // Another session holds the gallery's lock: the replay waits for it, certainly longer than submit does.
    const holder = postgres(testDb.url, { max: 1 });
    const reserved = await holder.reserve();
    await reserved`select pg_advisory_lock(${GALLERY_LOCK})`;
    try {
      const run = await runWithCapture("/library");
      const answer = await submitRun(testDb.db, files.store, agent, { run }, { waitMs: 200 });
      expect(answer.status).toBe("replaying");
      expect(await statusOf(run)).toBe("replaying");
      await reserved`select pg_advisory_unlock(${GALLERY_LOCK})`;
      await expect.poll(() => statusOf(run), { timeout: 10_000 }).toBe("replayed");
    } finally {
      reserved.release();
      await holder.end();
    }
  });
});

describe("resumeStaleReplays", () => {
  it("replays a run its process left replaying long ago, and leaves a fresh one to its replay", async () => {
    const orphan = await runWithCapture("/devices");
    // What a process stopped mid-replay leaves behind: frozen, claimed, never finished.
    await testDb.db
      .update(schema.collectRuns)
      .set({ status: "replaying", submittedAt: sql`now() - interval '1 hour'` })
      .where(eq(schema.collectRuns.id, orphan));
    const fresh = await runWithCapture("/keys");
    await testDb.db
      .update(schema.collectRuns)
      .set({ status: "submitted", submittedAt: sql`now()` })
      .where(eq(schema.collectRuns.id, fresh));

    expect(await resumeStaleReplays(testDb.db, files.store)).toEqual([orphan]);
    expect(await statusOf(orphan)).toBe("replayed");
    expect(await statusOf(fresh)).toBe("submitted");
    const screens = await testDb.db
      .select({ run: schema.galleryScreens.runId })
      .from(schema.galleryScreens)
      .where(eq(schema.galleryScreens.runId, orphan));
    expect(screens).toHaveLength(1);
    expect(await resumeStaleReplays(testDb.db, files.store)).toEqual([]);
  });
});
