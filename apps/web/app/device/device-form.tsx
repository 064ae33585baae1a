"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef } from "react";
import { TextField } from "../../src/components/text-field";
import { FormMessage } from "../../src/forms/form-message";
import { keepTyped } from "../../src/forms/keep-typed";
import { idle } from "../../src/forms/state";
import { deviceAction } from "./actions";

/**
 * Enter (or confirm) the code a device shows, see who asks for what, then approve or deny. Only the first step asks
 * for a code (`lead`); once decided, the page says what happened and nothing more.
 */
export function DeviceForm({
  initialCode,
  lead,
  abilityText,
}: {
  initialCode: string;
  lead: string;
  /** What each ability lets the device do, in the page's language (`abilityTable`, read by the page). */
  abilityText: Record<string, string>;
}) {
  const t = useTranslations("device");
  const [state, action, pending] = useActionState(deviceAction, idle);
  // The clients are ours: the page names them in its own language, any other as the service names it.
  const clientName = (id: string, name: string) => (t.has(`clients.${id}`) ? t(`clients.${id}`) : name);
  const focusTarget = useRef<HTMLElement>(null);
  useEffect(() => {
    if (state.status !== "idle") focusTarget.current?.focus();
  }, [state]);

  if (state.status === "done" && state.data.step === "decided") {
    const { decision, deviceName } = state.data;
    const client = clientName(state.data.clientId, state.data.clientName);
    return (
      <div className="notice" role="status" tabIndex={-1} ref={focusTarget as React.RefObject<HTMLDivElement>}>
        <h2>{decision === "approve" ? t("approvedTitle") : t("deniedTitle")}</h2>
        <p>
          {decision === "approve"
            ? t("approvedBody", { client, device: deviceName ?? t("unnamedDevice") })
            : t("deniedBody", { client })}
        </p>
        <p>
          <a href="/settings/api-keys">{t("seeKeys")}</a>
        </p>
      </div>
    );
  }

  if (state.status === "done" && state.data.step === "review") {
    const request = state.data.request;
    return (
      <form action={action} onSubmit={keepTyped(action)} className="stack review" aria-labelledby="review-title">
        <h2 id="review-title" tabIndex={-1} ref={focusTarget as React.RefObject<HTMLHeadingElement>}>
          {t("reviewTitle", { client: clientName(request.client_id, request.client_name) })}
        </h2>
        <dl className="facts">
          <div>
            <dt>{t("code")}</dt>
            <dd>
              <code className="user-code">{request.user_code}</code>
            </dd>
          </div>
          <div>
            <dt>{t("deviceName")}</dt>
            <dd>{request.device_name ?? t("unnamedDevice")}</dd>
          </div>
        </dl>
        <p className="hint">{t("deviceNameHint")}</p>
        <h3>{t("abilitiesTitle")}</h3>
        <ul className="abilities">
          {request.abilities.map((ability) => (
            <li key={ability}>
              <code>{ability}</code> <span className="muted">{abilityText[ability] ?? ""}</span>
            </li>
          ))}
        </ul>
        <p className="warning">{t("warning")}</p>
        <input type="hidden" name="user_code" value={request.user_code} />
        <input type="hidden" name="client_id" value={request.client_id} />
        <div className="actions">
          <button type="submit" name="intent" value="deny" className="button secondary" disabled={pending}>
            {t("deny")}
          </button>
          <button type="submit" name="intent" value="approve" className="button" disabled={pending}>
            {t("approve")}
          </button>
        </div>
      </form>
    );
  }

  const fields = state.status === "failed" ? state.fields : {};
  return (
    <form action={action} onSubmit={keepTyped(action)} className="stack">
      <p className="muted">{lead}</p>
      <FormMessage state={state} />
      <TextField
        id="user-code"
        name="user_code"
        label={t("codeLabel")}
        hint={t("codeHint")}
        className="user-code-input"
        defaultValue={initialCode}
        required
        maxLength={20}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        placeholder="BDWP-HQPK"
        errors={fields.user_code}
      />
      <button type="submit" name="intent" value="review" className="button" disabled={pending}>
        {t("continue")}
      </button>
    </form>
  );
}
