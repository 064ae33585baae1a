import { checkAuthorizationRequest, consentScopes, describeAbility, isAbility, isNativeApp } from "@shelf/api";
import { setPageStatus } from "@shelf/api/host/pages";
import { titleFrom } from "@shelf/web-kit/site-head";
import { redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { consentToken } from "../../../src/auth/consent-token";
import { requireSession } from "../../../src/auth/session";
import { getRuntime } from "../../../src/runtime";

export const generateMetadata = titleFrom("consent", "title");

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The query as sent, repeated parameters kept (the check refuses them). */
function queryOf(params: Record<string, string | string[] | undefined>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, item);
  }
  return query;
}

/**
 * The authorization endpoint: checks the request, signs the person in if needed, and asks them. The decision posts
 * to /oauth/authorize/decision with the request and a token tied to this session.
 */
export default async function AuthorizePage({ searchParams }: Props) {
  const query = queryOf(await searchParams);
  const runtime = getRuntime();
  const outcome = await checkAuthorizationRequest(runtime.db, runtime.oauth, query);
  const t = await getTranslations("consent");
  const locale = await getLocale();
  if (outcome.kind === "invalid") {
    // Never a redirect (the client or its redirect URI is not sure), and an error: 400, as the page explains.
    setPageStatus(400);
    return (
      <section className="narrow card">
        <h1>{t("invalidTitle")}</h1>
        <p role="alert" className="error">
          {outcome.message}
        </p>
        <p className="muted">{t("invalidBody")}</p>
      </section>
    );
  }
  if (outcome.kind === "redirect") redirect(outcome.location);
  const { request } = outcome;
  // The redirect URI in the address, always: the page's CSP lets its form lead there (form-action).
  if (!query.has("redirect_uri")) {
    query.set("redirect_uri", request.redirectUri);
    redirect(`/oauth/authorize?${query}`);
  }
  const session = await requireSession(`/oauth/authorize?${query}`);
  const scopes = await consentScopes(runtime.db, session.accountId, request);
  const serialized = query.toString();
  const redirectUrl = new URL(request.redirectUri);
  // A native app's private-use scheme (cursor://anysphere.cursor-mcp/...) is named with its scheme: that is the app.
  const redirectHost =
    redirectUrl.protocol === "https:" || redirectUrl.protocol === "http:"
      ? redirectUrl.host
      : `${redirectUrl.protocol}//${redirectUrl.host}`.replace(/\/\/$/, "");
  return (
    <section className="narrow card stack">
      <h1>{t("heading", { client: request.client.name })}</h1>
      <p className="muted">{t("signedInAs", { email: session.email })}</p>
      <dl className="facts">
        <div>
          <dt>{t("app")}</dt>
          <dd>
            {request.client.name}
            {request.client.registration === "metadata_document" && (
              <div className="muted small">
                <code>{request.client.id}</code>
              </div>
            )}
          </dd>
        </div>
        <div>
          <dt>{t("returnsTo")}</dt>
          <dd>
            <code>{redirectHost}</code>
          </dd>
        </div>
      </dl>
      {isNativeApp(request.client) ? (
        <p className="warning">{t("nativeAppWarning")}</p>
      ) : request.client.registration === "dynamic" ? (
        <p className="warning">{t("unverifiedWarning", { host: redirectHost })}</p>
      ) : null}
      <form method="post" action="/oauth/authorize/decision" className="stack">
        <fieldset className="abilities">
          <legend>{t("scopesTitle")}</legend>
          <p className="hint">{t("scopesHint")}</p>
          <ul>
            {scopes.map(({ scope, held }) => (
              <li key={scope}>
                <label>
                  {/* mcp.read is what a connection is, and what the app holds stays: neither can be unticked. */}
                  <input
                    type="checkbox"
                    name="scope"
                    value={scope}
                    defaultChecked
                    disabled={held || scope === "mcp.read"}
                  />{" "}
                  <code>{scope}</code>{" "}
                  <span className="muted">{isAbility(scope) ? describeAbility(scope, locale) : ""}</span>
                  {held && (
                    <>
                      {" "}
                      <span className="badge">{t("alreadyAllowed")}</span>
                    </>
                  )}
                </label>
              </li>
            ))}
          </ul>
          {scopes.some(({ held }) => held) && <p className="hint">{t("heldHint", { client: request.client.name })}</p>}
        </fieldset>
        <p className="hint">{t("disconnectHint")}</p>
        <input type="hidden" name="request" value={serialized} />
        <input type="hidden" name="token" value={consentToken(runtime.authSecret, session.sessionId, serialized)} />
        <div className="actions">
          <button type="submit" name="decision" value="deny" className="button secondary">
            {t("deny")}
          </button>
          <button type="submit" name="decision" value="approve" className="button">
            {t("approve")}
          </button>
        </div>
      </form>
    </section>
  );
}
