"use client";

import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { TextField } from "../../../../src/components/text-field";
import { FormMessage } from "../../../../src/forms/form-message";
import { keepTyped } from "../../../../src/forms/keep-typed";
import { idle } from "../../../../src/forms/state";
import { changeNameAction } from "./actions";

/** The person's name; what was typed stays after a refusal. */
export function NameForm({ name }: { name: string | null }) {
  const t = useTranslations("profile");
  const [state, action, pending] = useActionState(changeNameAction, idle);
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      <FormMessage state={state} done={(data) => (data.name ? t("saved", { name: data.name }) : t("cleared"))} />
      <TextField
        id="name"
        name="name"
        label={t("name")}
        hint={t("nameHint")}
        type="text"
        autoComplete="name"
        maxLength={200}
        defaultValue={name ?? ""}
        errors={fields.name}
      />
      <button type="submit" className="button" disabled={pending}>
        {pending ? t("saving") : t("save")}
      </button>
    </form>
  );
}
