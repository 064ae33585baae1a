import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Delivery } from "@shelf/api";
import { GALLERY_LOCK } from "@shelf/api/design-gallery/replay";
import { failRunAsOperator } from "@shelf/api/routers/design-collect/admin-service";
import { openRun } from "@shelf/api/routers/design-collect/service";
import { SUBMIT_WAIT_MS } from "@shelf/api/routers/design-collect/submit";
import { createTestDelivery } from "@shelf/api/testing/delivery";
import { schema } from "@shelf/db";
import { createTestDatabase, useTestDatabase } from "@shelf/db/testing";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_COLLECTOR, DEMO_RUN_DIR, seedDemoGallery } from "./design-gallery";

const testDb = useTestDatabase();
let files: Delivery;

beforeAll(async () => {
  files = await createTestDelivery();
});

describe("the demo gallery", () => {
  it("waits while another collector holds the lock, then loads the saved run through the replay once", async () => {
    const { db } = testDb;
    const holder = await openRun(
      db,
      { tokenId: null, name: "someone-else" },
      { apps: null, viewports: ["desktop"], langs: ["en"] },
    );
    expect(await seedDemoGallery(db, files.store)).toMatchObject({ runId: null, loaded: false });
    expect(await db.select().from(schema.collectRuns)).toHaveLength(1);
    await failRunAsOperator(db, holder.id, "done");

    const first = await seedDemoGallery(db, files.store);
    expect(first).toMatchObject({ loaded: true, runId: expect.any(Number) });
    const again = await seedDemoGallery(db, files.store);
    expect(again).toEqual({ runId: first.runId, loaded: false });

    // Every saved capture is recorded, and the replay made the gallery of both apps from them.
    const saved = JSON.parse(await readFile(path.join(DEMO_RUN_DIR, "run.json"), "utf8"));
    const [run] = await db.select().from(schema.collectRuns).where(eq(schema.collectRuns.openerName, DEMO_COLLECTOR));
    expect(run?.status).toBe("replayed");
    const captures = await db
      .select()
      .from(schema.collectCaptures)
      .where(eq(schema.collectCaptures.runId, run?.id as number));
    expect(captures).toHaveLength(saved.captures.length);
    expect(saved.captures.length).toBeGreaterThanOrEqual(20);
    const apps = await db.select({ slug: schema.galleryApps.slug }).from(schema.galleryApps);
    expect(apps.map((app) => app.slug).sort()).toEqual(["accounts", "design"]);
    const variants = await db.select().from(schema.galleryScreenVariants);
    expect(variants).toHaveLength(captures.filter((capture) => capture.outcome === "ok").length);
    const terms = await db.select({ kind: schema.galleryTerms.kind }).from(schema.galleryTerms);
    for (const kind of ["page_type", "font", "color"]) expect(terms.map((term) => term.kind)).toContain(kind);
  });
});

describe("the demo gallery on a busy machine", () => {
  it("waits for its own replay however long it takes, past the bound submit waits for a collector", async () => {
    const busy = await createTestDatabase();
    // Another session holds the gallery's lock: the demo's replay waits for it, as a slow replay would.
    const holder = postgres(busy.url, { max: 1 });
    const reserved = await holder.reserve();
    await reserved`select pg_advisory_lock(${GALLERY_LOCK})`;
    try {
      let settled = false;
      const seeding = seedDemoGallery(busy.db, files.store);
      const settle = () => {
        settled = true;
      };
      seeding.then(settle, settle);
      const status = async () =>
        (await busy.db.select().from(schema.collectRuns).where(eq(schema.collectRuns.openerName, DEMO_COLLECTOR)))[0]
          ?.status;
      await expect.poll(status, { timeout: 60_000 }).toBe("replaying");
      await new Promise((resolve) => setTimeout(resolve, SUBMIT_WAIT_MS + 1000));
      expect(settled).toBe(false);
      await reserved`select pg_advisory_unlock(${GALLERY_LOCK})`;
      expect(await seeding).toMatchObject({ loaded: true, runId: expect.any(Number) });
      expect(await status()).toBe("replayed");
    } finally {
      reserved.release();
      await holder.end();
      await busy.drop();
    }
  }, 120_000);
});
