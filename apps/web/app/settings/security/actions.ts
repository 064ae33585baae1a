"use server";

import { pageCaller, requireSession } from "../../../src/auth/session";
import { failedForm } from "../../../src/forms/errors";
import type { FormState } from "../../../src/forms/state";

/** Changes the password (the current one checked and counted like a sign-in) and ends every other session. */
export async function changePasswordAction(
  _state: FormState<{ endedSessions: number }>,
  form: FormData,
): Promise<FormState<{ endedSessions: number }>> {
  const session = await requireSession("/settings/security");
  try {
    const result = await (await pageCaller(session)).account.changePassword({
      current_password: String(form.get("current_password") ?? ""),
      new_password: String(form.get("new_password") ?? ""),
    });
    return { status: "done", data: { endedSessions: result.ended_sessions } };
  } catch (error) {
    return failedForm(error);
  }
}

/** Changes the name the pages greet the person by (empty: none). */
export async function changeNameAction(
  _state: FormState<{ name: string | null }>,
  form: FormData,
): Promise<FormState<{ name: string | null }>> {
  const session = await requireSession("/settings/security");
  try {
    const result = await (await pageCaller(session)).account.changeName({ name: String(form.get("name") ?? "") });
    return { status: "done", data: { name: result.name } };
  } catch (error) {
    return failedForm(error);
  }
}
