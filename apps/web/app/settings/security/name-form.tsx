"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef } from "react";
import { TextField } from "../../../src/components/text-field";
import { keepTyped } from "../../../src/forms/keep-typed";
import { idle } from "../../../src/forms/state";
import { changeNameAction } from "./actions";

/** The person's name; what was typed stays after a refusal. */
export function NameForm({ name }: { name: string | null }) {
  const t = useTranslations("profile");
  const [state, action, pending] = useActionState(changeNameAction, idle);
  const message = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (state.status !== "idle") message.current?.focus();
  }, [state]);
  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      {state.status === "failed" && (
        <p className="error" role="alert" tabIndex={-1} ref={message}>
          {state.message}
        </p>
      )}
      {state.status === "done" && (
        <p className="notice" role="status" tabIndex={-1} ref={message}>
          {state.data.name ? t("saved", { name: state.data.name }) : t("cleared")}
        </p>
      )}
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
