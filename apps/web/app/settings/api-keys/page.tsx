import { randomBytes } from "node:crypto";
import { accountAbilities, defaultAbilities, describeAbility } from "@shelf/api";
import type { Metadata } from "next";
import { getLocale, getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { ConfirmButton } from "../../../src/components/confirm-button";
import { CodeTags, RecordTable } from "../../../src/components/record-table";
import { dateFormatter } from "../../../src/format";
import { revokeKeyAction } from "./actions";
import { CreateKeyForm } from "./create-key-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("keys"))("title") };
}

type Props = { searchParams: Promise<{ scope?: string; ended?: string }> };

/**
 * Developer settings: the account's keys (prefix only, ever), their free slots, creating and revoking. `?scope=`
 * (`account` or a product id) lists one scope's keys, where a "full" message sends its person; `?ended=1` also lists
 * the revoked and expired keys, greyed, with the date each ended.
 */
export default async function ApiKeysPage({ searchParams }: Props) {
  const session = await requireSession("/settings/api-keys");
  const query = await searchParams;
  const { keys: allKeys, scopes, ended: allEnded } = await (await pageCaller(session)).keys.list();
  const scopeOf = (key: { product: { id: number } | null }) => (key.product ? String(key.product.id) : "account");
  const chosen = scopes.find((scope) => (scope.product ? String(scope.product.id) : "account") === query.scope);
  const inScope = <T extends { product: { id: number } | null }>(list: T[]) =>
    chosen ? list.filter((key) => scopeOf(key) === query.scope) : list;
  const keys = inScope(allKeys);
  const ended = inScope(allEnded);
  const showEnded = query.ended === "1";
  const here = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams();
    const merged = { scope: chosen ? query.scope : undefined, ended: showEnded ? "1" : undefined, ...changes };
    for (const [name, value] of Object.entries(merged)) if (value) next.set(name, value);
    const search = next.toString();
    return `/settings/api-keys${search ? `?${search}` : ""}#keys-title`;
  };
  const t = await getTranslations("keys");
  const locale = await getLocale();
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
        <h2 id="keys-title">
          {chosen
            ? t("listTitleOf", { scope: chosen.product ? chosen.product.name : t("accountWide") })
            : t("listTitle")}
        </h2>
        {chosen && (
          <p>
            <a href={here({ scope: undefined })}>{t("allScopes")}</a>
          </p>
        )}
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
        <p>
          <a href={here({ ended: showEnded ? undefined : "1" })}>
            {showEnded ? t("hideEnded") : t("showEnded", { count: ended.length })}
          </a>
        </p>
        {showEnded && (
          <section aria-labelledby="ended-title">
            <h3 id="ended-title">{t("endedTitle")}</h3>
            {ended.length === 0 ? (
              <p className="empty">{t("noEnded")}</p>
            ) : (
              <div className="table-wrap">
                <table className="keys ended stacked">
                  <thead>
                    <tr>
                      <th scope="col">{t("name")}</th>
                      <th scope="col">{t("prefix")}</th>
                      <th scope="col">{t("scope")}</th>
                      <th scope="col">{t("dates")}</th>
                    </tr>
                  </thead>
                  <tbody>
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
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
      </section>

      <section aria-labelledby="create-title" className="card">
        <h2 id="create-title">{t("createTitle")}</h2>
        <CreateKeyForm
          formToken={randomBytes(18).toString("base64url")}
          abilities={accountAbilities.map((name) => ({ name, description: describeAbility(name, locale) }))}
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
