"use server";

import type { DeviceSignInRequestData } from "@shelf/api";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../src/auth/session";
import { failedForm } from "../../src/forms/errors";
import { namingFullScope } from "../../src/forms/full-scope";
import type { FormState } from "../../src/forms/state";

export type DeviceStep =
  | { step: "review"; request: DeviceSignInRequestData }
  | { step: "decided"; decision: "approve" | "deny"; clientId: string; clientName: string; deviceName: string | null };

/**
 * The device page's one action: "review" looks the code up (a wrong code counts against the person's guesses);
 * "approve" or "deny" decides it. A code is decided once; the key is made when the device next polls.
 */
export async function deviceAction(_state: FormState<DeviceStep>, form: FormData): Promise<FormState<DeviceStep>> {
  const session = await requireSession("/device");
  const caller = await pageCaller(session);
  const userCode = String(form.get("user_code") ?? "");
  const intent = String(form.get("intent") ?? "review");
  try {
    if (intent === "approve" || intent === "deny") {
      const decided = await caller.deviceSignIn.decide({ user_code: userCode, decision: intent });
      return {
        status: "done",
        data: {
          step: "decided",
          decision: decided.decision,
          // Names the client in the page's words (posted by the review form; the service names it in English).
          clientId: String(form.get("client_id") ?? ""),
          clientName: decided.client_name,
          deviceName: decided.device_name,
        },
      };
    }
    return {
      status: "done",
      data: { step: "review", request: await caller.deviceSignIn.find({ user_code: userCode }) },
    };
  } catch (error) {
    // A device sign-in key is account-wide: that is the scope whose slots are full.
    const accountWide = (await getTranslations("keys"))("accountWide");
    const failed = await namingFullScope(await failedForm(error), { value: "account", name: accountWide });
    if (failed.code !== "api_key_limit_reached") return failed;
    // The refusal ended the sign-in (the service told the device): approving this code again finds nothing.
    return { ...failed, message: `${failed.message} ${(await getTranslations("device"))("signInEnded")}` };
  }
}
