"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { postedId, settleRemoval } from "../../../../src/forms/settle";

/** Signs one session of the person out: that browser is asked to sign in again on its next page. */
export async function endSessionAction(form: FormData): Promise<void> {
  const session = await requireSession("/account/sessions");
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => (await pageCaller(session)).sessions.end({ id }));
  revalidatePath("/account/sessions");
}

/** "Sign out everywhere": every browser of the person, this one included, must sign in again. */
export async function endAllSessionsAction(): Promise<void> {
  const session = await requireSession("/account/sessions");
  await (await pageCaller(session)).sessions.endAll();
  redirect("/sign-in?signedOut=all");
}
