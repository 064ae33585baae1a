import { randomInt } from "node:crypto";
import { Readable } from "node:stream";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
// Upward on purpose: an example publishes through the products domain's own publishing, as the CLI does (tests only).
import { publishRelease } from "../routers/products/publish";
import type { ExampleContext } from "../trpc";

/** A stable release of the example's product with a small stored file: what the routes' examples download. */
export async function exampleRelease({ db, productId, delivery }: ExampleContext) {
  const { id } = await publishRelease(
    db,
    delivery,
    { productId, version: `1.0.${randomInt(1_000_000_000)}`, filename: "example.zip" },
    Readable.from([Buffer.from("example artifact")]),
  );
  const [row] = await db.select().from(schema.releases).where(eq(schema.releases.id, id));
  return row as typeof schema.releases.$inferSelect;
}
