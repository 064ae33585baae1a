"use server";

import { accountAbilities } from "@shelf/api";
import { revalidatePath } from "next/cache";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { failedForm } from "../../../src/forms/errors";
import { namingFullScope } from "../../../src/forms/full-scope";
import { actOnPostedRow } from "../../../src/forms/settle";
import type { FormState } from "../../../src/forms/state";

export type CreatedKey = { key: string; name: string; prefix: string };

/** How long a new key lasts, as the form offers it. */
const EXPIRY_DAYS: Record<string, number | null> = { never: null, "7": 7, "30": 30, "90": 90, "365": 365 };

/**
 * Creates a key through the same service as the operator CLI (the slot rule lives there once). The plain key is in
 * this answer only: React sends it to this browser and it is never stored, logged or put in a URL.
 */
export async function createKeyAction(state: FormState<CreatedKey>, form: FormData): Promise<FormState<CreatedKey>> {
  const session = await requireSession("/settings/api-keys");
  const scope = String(form.get("scope") ?? "account");
  const expiry = String(form.get("expiry") ?? "never");
  const days = EXPIRY_DAYS[expiry];
  const wanted = form.getAll("abilities").map(String);
  try {
    const created = await (await pageCaller(session)).keys.create({
      name: String(form.get("name") ?? ""),
      abilities: wanted.filter((ability): ability is (typeof accountAbilities)[number] =>
        (accountAbilities as readonly string[]).includes(ability),
      ),
      product_id: scope === "account" ? null : Number(scope),
      expires_at: days ? new Date(Date.now() + days * 86_400_000).toISOString() : null,
      form_token: String(form.get("form_token") ?? ""),
    });
    revalidatePath("/settings/api-keys");
    return {
      status: "done",
      data: { key: created.key, name: created.record.name ?? "", prefix: created.record.prefix },
    };
  } catch (error) {
    const failed = await failedForm(error);
    if (failed.code === "conflict" || failed.fields.form_token) return sentBefore(state, failed.code === "conflict");
    if (failed.code !== "api_key_limit_reached") return failed;
    const { scopes } = await (await pageCaller(session)).keys.list();
    const named = scopes.find((entry) => String(entry.product?.id ?? "account") === scope)?.product?.name;
    const name = named ?? (await getTranslations("keys"))("accountWide");
    return namingFullScope(failed, { value: scope, name });
  }
}

/**
 * The answer to a form whose one-time token was used (a second press while the first was on its way, a post sent
 * again) or missing (a page from before the token): the key the first press made stays on screen if this browser has
 * it; otherwise the person is told where it is.
 */
async function sentBefore(state: FormState<CreatedKey>, used: boolean): Promise<FormState<CreatedKey>> {
  if (used && state.status === "done") return state;
  const t = await getTranslations("keys");
  return { status: "failed", message: used ? t("alreadySent") : t("reloadForm"), fields: {}, code: "conflict" };
}

export async function revokeKeyAction(form: FormData): Promise<void> {
  await actOnPostedRow(form, "/settings/api-keys", (caller, id) => caller.keys.revoke({ id }));
}
