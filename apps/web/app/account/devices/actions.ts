"use server";

import { actOnPostedRow } from "../../../src/forms/settle";

/** Frees a device's seats: it must check its license again, and takes a seat only if one is free. */
export async function releaseDevice(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/account/devices", (caller, id) => caller.device.release({ id }));
}

/** Lifts a block the person made on the product page: the device's next license check may take a seat again. */
export async function unblockDevice(form: FormData): Promise<void> {
  const product = Number(form.get("product"));
  await actOnPostedRow(form, "/account/devices", async (caller, id) => {
    if (Number.isInteger(product) && product > 0) await caller.device.unblock({ id, product });
  });
}
