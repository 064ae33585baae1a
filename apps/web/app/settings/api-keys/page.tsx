import { accountAbilities, defaultAbilities } from "@shelf/api";
import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { ConfirmButton } from "../../../src/components/confirm-button";
import { CodeTags, RecordTable } from "../../../src/components/record-table";
import { dateFormatter } from "../../../src/format";
import { revokeKeyAction } from "./actions";
import { CreateKeyForm } from "./create-key-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("keys"))("title") };
}

/** Developer settings: the account's keys (prefix only, ever), their free slots, creating and revoking. */
export default async function ApiKeysPage() {
  const session = await requireSession("/settings/api-keys");
  const { keys, scopes } = await (await pageCaller(session)).keys.list();
  const t = await getTranslations("keys");
  const date = await dateFormatter();
  const clientNames: Record<string, string> = {
    "shelf-cli": t("clients.shelf-cli"),
    "shelf-desktop": t("clients.shelf-desktop"),
  };
  return (
    <section className="stack-large">
      <header>
        <h1>{t("title")}</h1>
        <p className="muted">
          {t("lead")} <a href="/docs/api">{t("apiReference")}</a>
        </p>
      </header>

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

      <section aria-labelledby="keys-title">
        <h2 id="keys-title">{t("listTitle")}</h2>
        <RecordTable
          rows={keys.length}
          empty={t("empty")}
          headers={[t("name"), t("prefix"), t("abilities"), t("scope"), t("dates")]}
          actions={t("actions")}
          className="keys"
        >
          {keys.map((key) => (
            <tr key={key.id}>
              <td>
                {key.name ?? "—"}
                <div className="muted small">
                  {key.kind === "device"
                    ? t("kindDevice", { client: clientNames[key.client ?? ""] ?? key.client ?? "" })
                    : t("kindCreated")}
                </div>
              </td>
              <td>
                <code className="prefix">{key.prefix}…</code>
              </td>
              <td>
                <CodeTags items={key.abilities} />
              </td>
              <td>{key.product ? key.product.name : t("accountWide")}</td>
              <td>
                <dl className="dates">
                  <dt>{t("created")}</dt>
                  <dd>{date(key.created_at)}</dd>
                  <dt>{t("lastUsed")}</dt>
                  <dd>{key.last_used_at ? date(key.last_used_at, true) : t("never")}</dd>
                  <dt>{t("expires")}</dt>
                  <dd>{key.expires_at ? date(key.expires_at) : t("noExpiry")}</dd>
                </dl>
              </td>
              <td>
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
      </section>

      <section aria-labelledby="create-title" className="card">
        <h2 id="create-title">{t("createTitle")}</h2>
        <CreateKeyForm
          abilities={[...accountAbilities]}
          defaults={[...defaultAbilities.created]}
          scopes={scopes.map((scope) => ({
            value: scope.product ? String(scope.product.id) : "account",
            label: scope.product ? scope.product.name : t("accountWide"),
            free: scope.free,
          }))}
        />
      </section>
    </section>
  );
}
