import { randomBytes } from "node:crypto";
import type { Database } from "@shelf/db";
import { schema } from "@shelf/db";
import type { ArtifactStore } from "@shelf/server/storage/store";
import { and, eq } from "drizzle-orm";
import { replayRun } from "../../design-gallery/replay";

/** The smallest PNG there is: one transparent pixel. */
const EXAMPLE_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==",
  "base64",
);

/**
 * A screen made as a collector's would be: a submitted run of one capture (its image in the store) replayed into the
 * gallery, in a flow of its own. The security matrix's success rows of the gallery's routes name it.
 */
export async function exampleScreen(db: Database, store: ArtifactStore) {
  const page = `/example-${randomBytes(4).toString("hex")}`;
  const [run] = await db
    .insert(schema.collectRuns)
    .values({
      status: "submitted",
      viewports: ["desktop"],
      langs: ["en"],
      openerName: "gallery-example",
      leaseExpiresAt: new Date(),
      submittedAt: new Date(),
      buildVersions: ["example-build"],
    })
    .returning({ id: schema.collectRuns.id });
  if (!run) throw new Error("no run");
  const image = await store.put([EXAMPLE_PNG], "image/png");
  await db.insert(schema.collectCaptures).values({
    runId: run.id,
    key: randomBytes(20).toString("hex"),
    url: `https://design.shelf.test${page}`,
    viewport: "desktop",
    lang: "en",
    auth: false,
    outcome: "ok",
    finalUrl: `https://design.shelf.test${page}`,
    httpStatus: 200,
    meta: { app: "design", page, title: "Example", page_type: "home", patterns: ["card"], flow: "Example" },
    imageSha256: image.sha256,
    imageType: "png",
    imageWidth: 1,
    imageHeight: 1,
    imageSize: image.size,
    imageKey: image.key,
  });
  await replayRun(db, run.id, { store });
  const [row] = await db
    .select({
      screenId: schema.galleryScreens.id,
      appId: schema.galleryScreens.appId,
      variantId: schema.galleryScreenVariants.id,
    })
    .from(schema.galleryScreens)
    .innerJoin(schema.galleryScreenVariants, eq(schema.galleryScreenVariants.screenId, schema.galleryScreens.id))
    .where(and(eq(schema.galleryScreens.runId, run.id), eq(schema.galleryScreens.page, page)));
  if (!row) throw new Error("the example run made no screen");
  return row;
}
