import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { ConfirmButton } from "../../../../src/components/confirm-button";
import { PageSection } from "../../../../src/components/page-section";
import { dateFormatter } from "../../../../src/format";
import { endAllSessionsAction, endSessionAction } from "./actions";

export const generateMetadata = titleFrom("sessions", "title");

/** A browser's name from its User-Agent, in a few words ("Chrome on Linux"); the whole string stays in the title. */
function browserOf(agent: string | null): string | null {
  if (!agent) return null;
  const browser = /Edg\//.test(agent)
    ? "Edge"
    : /Firefox\//.test(agent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(agent)
        ? "Chrome"
        : /Safari\//.test(agent)
          ? "Safari"
          : null;
  const system = /Windows/.test(agent)
    ? "Windows"
    : /Android/.test(agent)
      ? "Android"
      : /iPhone|iPad/.test(agent)
        ? "iOS"
        : /Mac OS X/.test(agent)
          ? "macOS"
          : /Linux/.test(agent)
            ? "Linux"
            : null;
  return [browser, system].filter(Boolean).join(" · ") || null;
}

/** The person's signed-in browsers: where each signed in from, when it was last used, and "sign out" for each. */
export default async function SessionsPage() {
  const session = await requireSession("/account/sessions");
  const sessions = await (await pageCaller(session)).sessions.list();
  const t = await getTranslations("sessions");
  const date = await dateFormatter();
  return (
    <PageSection title={t("title")} lead={t("lead")}>
      <ol className="log" aria-label={t("title")}>
        {sessions.map((live) => (
          <li key={live.id} className="log-entry session-entry">
            <div>
              <p className="log-what">
                <strong>{browserOf(live.user_agent) ?? t("unknownBrowser")}</strong>
                {live.current && <span className="badge"> {t("current")}</span>}
              </p>
              <p className="muted small">
                {t("signedIn", { date: date(live.created_at, true) })}
                {live.address && <span> · {t("from", { address: live.address })}</span>}
              </p>
              <p className="muted small">{t("lastSeen", { date: date(live.last_seen_at, true) })}</p>
            </div>
            {!live.current && (
              <ConfirmButton
                label={t("signOut")}
                title={t("signOutTitle")}
                body={t("signOutBody")}
                confirmLabel={t("signOutConfirm")}
                cancelLabel={t("cancel")}
                action={endSessionAction}
                fields={{ id: String(live.id) }}
              />
            )}
          </li>
        ))}
      </ol>
      <section className="card narrow-card stack" aria-labelledby="sign-out-all">
        <h2 id="sign-out-all">{t("everywhereTitle")}</h2>
        <p className="muted">{t("everywhereLead")}</p>
        <div>
          <ConfirmButton
            label={t("everywhere")}
            title={t("everywhereConfirmTitle")}
            body={t("everywhereBody")}
            confirmLabel={t("everywhere")}
            cancelLabel={t("cancel")}
            action={endAllSessionsAction}
            fields={{}}
            dialogId="everywhere"
          />
        </div>
      </section>
    </PageSection>
  );
}
