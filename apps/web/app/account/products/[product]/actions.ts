"use server";

import { revalidatePath } from "next/cache";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { actOnPostedRow, settleRemoval } from "../../../../src/forms/settle";

function postedProduct(form: FormData): number | null {
  const id = Number(form.get("product"));
  return Number.isInteger(id) && id > 0 ? id : null;
}

/** Frees a device's seats (the devices page's release): it takes a seat again at its next check if one is free. */
export async function releaseProductDevice(form: FormData): Promise<void> {
  const product = postedProduct(form);
  await actOnPostedRow(form, `/account/products/${product ?? ""}`, (caller, id) => caller.device.release({ id }));
}

/** Keeps a device off the product (the operator's `policy:revoke`): its next license check is refused. */
export async function blockProductDevice(form: FormData): Promise<void> {
  const product = postedProduct(form);
  await actOnPostedRow(form, `/account/products/${product ?? ""}`, async (caller, id) => {
    if (product !== null) await caller.device.block({ id, product });
  });
}

/** Ticks or unticks one setup step (the `setup-progress` write of the API). */
export async function recordSetupStep(form: FormData): Promise<void> {
  const product = postedProduct(form);
  const session = await requireSession(`/account/products/${product ?? ""}`);
  const step = Number(form.get("step"));
  if (product === null || !Number.isInteger(step) || step < 0) return;
  const done = form.get("done") === "1";
  await settleRemoval(async () =>
    (await pageCaller(session)).setup.record({
      product,
      ...(done ? { completed_step_indexes: [step] } : { uncompleted_step_indexes: [step] }),
    }),
  );
  revalidatePath(`/account/products/${product}`);
}
