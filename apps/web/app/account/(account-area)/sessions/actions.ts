"use server";

import { revalidatePath } from "next/cache";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { postedId, settleRemoval } from "../../../src/forms/settle";

/** Signs one session of the person out: that browser is asked to sign in again on its next page. */
export async function endSessionAction(form: FormData): Promise<void> {
  const session = await requireSession("/settings/sessions");
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => (await pageCaller(session)).sessions.end({ id }));
  revalidatePath("/settings/sessions");
}
