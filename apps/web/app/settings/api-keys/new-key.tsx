"use client";

import { useTranslations } from "next-intl";
import { type Ref, useState } from "react";

/**
 * The key just made, shown once: its value to copy (the page never shows it again), and a button that puts it away.
 * It takes the focus from its form (`ref`).
 */
export function NewKey({
  name,
  value,
  onDone,
  ref,
}: {
  name: string;
  value: string;
  onDone: () => void;
  ref: Ref<HTMLElement>;
}) {
  const t = useTranslations("keys");
  const [copied, setCopied] = useState(false);
  return (
    <section className="new-key" aria-labelledby="new-key-title" tabIndex={-1} ref={ref}>
      <h3 id="new-key-title">{t("createdTitle", { name })}</h3>
      <p className="warning">{t("createdWarning")}</p>
      <div className="copy-row">
        <label htmlFor="new-key-value" className="visually-hidden">
          {t("createdLabel")}
        </label>
        <input id="new-key-value" readOnly value={value} className="mono" onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          className="button"
          onClick={async () => {
            await navigator.clipboard.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {t("copy")}
        </button>
      </div>
      <p role="status" className="muted">
        {copied ? t("copied") : ""}
      </p>
      <button type="button" className="button secondary" onClick={onDone}>
        {t("createdDone")}
      </button>
    </section>
  );
}
