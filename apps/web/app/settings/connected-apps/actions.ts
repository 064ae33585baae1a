"use server";

import { actOnPostedRow } from "../../../src/forms/settle";

/** Disconnects an app: its grant is revoked and its tokens stop working on their next use. */
export async function disconnectAppAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/settings/connected-apps", (caller, id) => caller.connectedApps.disconnect({ id }));
}
