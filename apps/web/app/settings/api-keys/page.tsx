import { randomBytes } from "node:crypto";
import { accountAbilities, defaultAbilities, describeAbility } from "@shelf/api";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getLocale, getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { PageSection } from "../../../src/components/page-section";
import { CreateKeyForm } from "./create-key-form";
import { EndedKeys, KeySlots, LiveKeys } from "./key-lists";

export const generateMetadata = titleFrom("keys", "title");

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
  return (
    <PageSection
      title={t("title")}
      lead={
        <>
          {t("lead")} <a href="/docs/api">{t("apiReference")}</a>
        </>
      }
    >
      <KeySlots scopes={scopes} />

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
        <LiveKeys keys={keys} />
        <p>
          <a href={here({ ended: showEnded ? undefined : "1" })}>
            {showEnded ? t("hideEnded") : t("showEnded", { count: ended.length })}
          </a>
        </p>
        {showEnded && <EndedKeys ended={ended} />}
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
    </PageSection>
  );
}
