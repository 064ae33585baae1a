import type { KeyListData } from "@shelf/api/schemas";
import { getTranslations } from "next-intl/server";
import { ConfirmButton } from "../../../src/components/confirm-button";
import { CodeTags, RecordTable } from "../../../src/components/record-table";
import { dateFormatter } from "../../../src/format";
import { revokeKeyAction } from "./actions";

/** Each scope's key slots: how many are free of its limit. */
export async function KeySlots({ scopes }: { scopes: KeyListData["scopes"] }) {
  const t = await getTranslations("keys");
  return (
    <section aria-labelledby="slots-title" className="card">
      <h2 id="slots-title">{t("slotsTitle")}</h2>
      <ul className="slots">
        {scopes.map((scope) => (
          <li key={scope.product?.id ?? "account"} data-testid={`slots-${scope.product?.id ?? "account"}`}>
            <span>{scope.product ? scope.product.name : t("accountWide")}</span>
            <span className={scope.free === 0 ? "badge warn" : "badge"}>
              {scope.free === 0
                ? t("slotsFull", { limit: scope.limit })
                : t("slotsFree", { free: scope.free, limit: scope.limit })}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The keys in use: name and how it was made, prefix, abilities, scope, dates, and revoking. */
export async function LiveKeys({ keys }: { keys: KeyListData["keys"] }) {
  const [t, date] = await Promise.all([getTranslations("keys"), dateFormatter()]);
  const clientNames: Record<string, string> = {
    "shelf-cli": t("clients.shelf-cli"),
    "shelf-desktop": t("clients.shelf-desktop"),
  };
  return (
    <RecordTable
      rows={keys.length}
      empty={t("empty")}
      headers={[t("name"), t("prefix"), t("abilities"), t("scope"), t("dates")]}
      actions={t("actions")}
      className="keys"
    >
      {keys.map((key) => (
        <tr key={key.id}>
          <td data-label={t("name")}>
            {key.name ?? "—"}
            <div className="muted small">
              {key.kind === "device"
                ? t("kindDevice", { client: clientNames[key.client ?? ""] ?? key.client ?? "" })
                : t("kindCreated")}
            </div>
          </td>
          <td data-label={t("prefix")}>
            <code className="prefix">{key.prefix}…</code>
          </td>
          <td data-label={t("abilities")}>
            <CodeTags items={key.abilities} />
          </td>
          <td data-label={t("scope")}>{key.product ? key.product.name : t("accountWide")}</td>
          <td data-label={t("dates")}>
            <dl className="dates">
              <dt>{t("created")}</dt>
              <dd>{date(key.created_at)}</dd>
              <dt>{t("lastUsed")}</dt>
              <dd>
                {key.last_used_at ? date(key.last_used_at, true) : t("never")}
                {key.last_used_address && (
                  <div className="muted small">{t("from", { address: key.last_used_address })}</div>
                )}
              </dd>
              <dt>{t("expires")}</dt>
              <dd>{key.expires_at ? date(key.expires_at) : t("noExpiry")}</dd>
            </dl>
          </td>
          <td className="row-actions">
            <ConfirmButton
              label={t("revoke")}
              title={t("revokeTitle", { name: key.name ?? key.prefix })}
              body={t("revokeBody")}
              confirmLabel={t("revokeConfirm")}
              cancelLabel={t("cancel")}
              action={revokeKeyAction}
              fields={{ id: String(key.id) }}
            />
          </td>
        </tr>
      ))}
    </RecordTable>
  );
}

/** The revoked and expired keys, greyed, with the date each ended. */
export async function EndedKeys({ ended }: { ended: KeyListData["ended"] }) {
  const [t, date] = await Promise.all([getTranslations("keys"), dateFormatter()]);
  return (
    <section aria-labelledby="ended-title">
      <h3 id="ended-title">{t("endedTitle")}</h3>
      <RecordTable
        rows={ended.length}
        empty={t("noEnded")}
        headers={[t("name"), t("prefix"), t("scope"), t("dates")]}
        className="keys ended"
      >
        {ended.map((key) => (
          <tr key={key.id}>
            <td data-label={t("name")}>{key.name ?? "—"}</td>
            <td data-label={t("prefix")}>
              <code className="prefix">{key.prefix}…</code>
            </td>
            <td data-label={t("scope")}>{key.product ? key.product.name : t("accountWide")}</td>
            <td data-label={t("dates")}>
              <dl className="dates">
                <dt>{key.revoked_at ? t("revoked") : t("expired")}</dt>
                <dd>{date(key.revoked_at ?? key.expires_at, true)}</dd>
                <dt>{t("lastUsed")}</dt>
                <dd>
                  {key.last_used_at ? date(key.last_used_at, true) : t("never")}
                  {key.last_used_address && (
                    <div className="small">{t("from", { address: key.last_used_address })}</div>
                  )}
                </dd>
              </dl>
            </td>
          </tr>
        ))}
      </RecordTable>
    </section>
  );
}
