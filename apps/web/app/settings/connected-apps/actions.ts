"use server";

import { revalidatePath } from "next/cache";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { postedId, settleRemoval } from "../../../src/forms/settle";

/** Disconnects an app: its grant is revoked and its tokens stop working on their next use. */
export async function disconnectAppAction(form: FormData): Promise<void> {
  const session = await requireSession("/settings/connected-apps");
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => (await pageCaller(session)).connectedApps.disconnect({ id }));
  revalidatePath("/settings/connected-apps");
}
