"use server";

import { redirect } from "next/navigation";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { actOnPostedRow } from "../../../../src/forms/settle";

/** Signs one session of the person out: that browser is asked to sign in again on its next page. */
export async function endSessionAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/account/sessions", (caller, id) => caller.sessions.end({ id }));
}

/** "Sign out everywhere": every browser of the person, this one included, must sign in again. */
export async function endAllSessionsAction(): Promise<void> {
  const session = await requireSession("/account/sessions");
  await (await pageCaller(session)).sessions.endAll();
  redirect("/sign-in?signedOut=all");
}
