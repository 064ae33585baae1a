"use server";

import { revalidatePath } from "next/cache";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { postedId, settleRemoval } from "../../../src/forms/settle";

/** Frees a device's seats: it must check its license again, and takes a seat only if one is free. */
export async function releaseDevice(form: FormData): Promise<void> {
  const session = await requireSession("/account/devices");
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => (await pageCaller(session)).device.release({ id }));
  revalidatePath("/account/devices");
}

/** Lifts a block the person made on the product page: the device's next license check may take a seat again. */
export async function unblockDevice(form: FormData): Promise<void> {
  const session = await requireSession("/account/devices");
  const id = postedId(form);
  const product = Number(form.get("product"));
  if (id !== null && Number.isInteger(product) && product > 0) {
    await settleRemoval(async () => (await pageCaller(session)).device.unblock({ id, product }));
  }
  revalidatePath("/account/devices");
}
