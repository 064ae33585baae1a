import { randomInt } from "node:crypto";
import { schema } from "@shelf/db";
import type { ExampleContext } from "../trpc";

/** A device of the example's account seated on the example's product; its identifier. */
export async function exampleSeat({ db, accountId, productId }: ExampleContext): Promise<string> {
  const identifier = `seated-${randomInt(1_000_000_000)}`;
  const [device] = await db
    .insert(schema.devices)
    .values({ accountId, identifier, lastSeenAt: new Date(), activatedAt: new Date() })
    .returning({ id: schema.devices.id });
  await db.insert(schema.deviceActivations).values({ accountId, productId, deviceId: (device as { id: number }).id });
  return identifier;
}
