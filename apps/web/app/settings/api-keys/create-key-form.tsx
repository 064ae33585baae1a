"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef, useState } from "react";
import { FieldError } from "../../../src/components/field-error";
import { TextField } from "../../../src/components/text-field";
import { FormMessage } from "../../../src/forms/form-message";
import { keepTyped } from "../../../src/forms/keep-typed";
import { idle } from "../../../src/forms/state";
import { createKeyAction } from "./actions";
import { NewKey } from "./new-key";

type Scope = { value: string; label: string; free: number };

/**
 * Create a key: name, abilities (contract 5.7's defaults ticked), scope with its free slots, expiry. One press sends
 * the form once (the presses that follow before the answer are dropped), and the server makes one key per form token
 * (`formToken`, new with each render of the page).
 */
export function CreateKeyForm({
  abilities,
  defaults,
  scopes,
  formToken,
}: {
  /** Each ability with its words in the page's language (`abilityTable`, read by the page). */
  abilities: { name: string; description: string }[];
  defaults: string[];
  scopes: Scope[];
  formToken: string;
}) {
  const t = useTranslations("keys");
  const [state, action, pending] = useActionState(createKeyAction, idle);
  const [dismissed, setDismissed] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const shown = useRef<HTMLElement>(null);
  const sending = useRef(false);
  const submit = keepTyped(action);

  useEffect(() => {
    if (!pending) sending.current = false;
  }, [pending]);

  // A refusal takes the focus itself (`FormMessage`); a new key, its panel.
  useEffect(() => {
    if (state.status === "done") {
      form.current?.reset();
      setDismissed(false);
      shown.current?.focus();
    }
  }, [state]);

  const fields = state.status === "failed" ? state.fields : {};
  return (
    <>
      {state.status === "done" && !dismissed && (
        <NewKey
          key={state.data.key}
          name={state.data.name}
          value={state.data.key}
          onDone={() => setDismissed(true)}
          ref={shown}
        />
      )}
      <form
        action={action}
        onSubmit={(event) => {
          if (sending.current) return event.preventDefault();
          sending.current = true;
          submit(event);
        }}
        ref={form}
        className="stack"
      >
        <input type="hidden" name="form_token" value={formToken} />
        <FormMessage state={state} />
        <TextField
          id="key-name"
          name="name"
          label={t("name")}
          required
          maxLength={100}
          placeholder={t("namePlaceholder")}
          errors={fields.name}
        />
        <fieldset className="field" aria-describedby={fields.abilities ? "abilities-error" : "abilities-hint"}>
          <legend>{t("abilities")}</legend>
          <p className="hint" id="abilities-hint">
            {t("abilitiesHint")}
          </p>
          <div className="checks">
            {abilities.map((ability) => (
              <label key={ability.name} className="check">
                <input
                  type="checkbox"
                  name="abilities"
                  value={ability.name}
                  defaultChecked={defaults.includes(ability.name)}
                />
                <span>
                  <code>{ability.name}</code>
                  <span className="muted small"> {ability.description}</span>
                </span>
              </label>
            ))}
          </div>
          <FieldError id="abilities-error" messages={fields.abilities} />
        </fieldset>
        <div className="row">
          <div className="field">
            <label htmlFor="key-scope">{t("scope")}</label>
            <select id="key-scope" name="scope" defaultValue="account">
              {scopes.map((scope) => (
                <option key={scope.value} value={scope.value} disabled={scope.free === 0}>
                  {scope.free === 0
                    ? t("scopeOptionFull", { label: scope.label })
                    : t("scopeOption", { label: scope.label, free: scope.free })}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="key-expiry">{t("expiry")}</label>
            <select id="key-expiry" name="expiry" defaultValue="never">
              <option value="never">{t("expiryNever")}</option>
              {["7", "30", "90", "365"].map((days) => (
                <option key={days} value={days}>
                  {t("expiryDays", { days: Number(days) })}
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" className="button" disabled={pending}>
          {pending ? t("creating") : t("create")}
        </button>
      </form>
    </>
  );
}
