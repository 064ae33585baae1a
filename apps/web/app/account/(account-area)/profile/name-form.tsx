"use client";

import { useTranslations } from "next-intl";
import { TextField } from "../../../../src/components/text-field";
import { AccountForm, useFormAction } from "../../../../src/forms/account-form";
import { changeNameAction } from "./actions";

/** The person's name; what was typed stays after a refusal. */
export function NameForm({ name }: { name: string | null }) {
  const t = useTranslations("profile");
  const form = useFormAction(changeNameAction);
  return (
    <AccountForm
      form={form}
      done={(data) => (data.name ? t("saved", { name: data.name }) : t("cleared"))}
      submit={t("save")}
      submitting={t("saving")}
    >
      <TextField
        id="name"
        name="name"
        label={t("name")}
        hint={t("nameHint")}
        type="text"
        autoComplete="name"
        maxLength={200}
        defaultValue={name ?? ""}
        errors={form.fields.name}
      />
    </AccountForm>
  );
}
