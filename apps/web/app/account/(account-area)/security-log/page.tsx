import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../../src/auth/session";
import { PageSection } from "../../../../src/components/page-section";
import { dateFormatter } from "../../../../src/format";

export const generateMetadata = titleFrom("securityLog", "title");

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const PAGE_SIZE = 25;

/** What the log's `detail` names, as a short phrase: a key's name and prefix, an app, a device, an address. */
function subject(detail: Record<string, string | number | null>): string | null {
  if (typeof detail.from === "string" && typeof detail.to === "string") return `${detail.from} → ${detail.to}`;
  if (typeof detail.email === "string") return detail.email;
  const named = detail.name ?? detail.client ?? null;
  const prefix = typeof detail.prefix === "string" ? detail.prefix : null;
  if (named !== null && prefix) return `${named} (${prefix}…)`;
  if (prefix) return `${prefix}…`;
  return named === null ? null : String(named);
}

/**
 * The account's security log: sign-ins and failures, password changes, keys, devices and apps, newest first, 25 a page
 * (older pages by `?before=`), in the page's language and time zone.
 */
export default async function SecurityLogPage({ searchParams }: Props) {
  const params = await searchParams;
  const raw = typeof params.before === "string" ? params.before : undefined;
  const before = raw && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) < 2 ** 31 ? Number(raw) : undefined;
  const session = await requireSession(`/account/security-log${before ? `?before=${before}` : ""}`);
  const log = await (await pageCaller(session)).securityLog.list({ before, limit: PAGE_SIZE });
  const t = await getTranslations("securityLog");
  const date = await dateFormatter();
  return (
    <PageSection title={t("title")} lead={t("lead")}>
      {log.events.length === 0 ? (
        <p className="empty">{before ? t("noOlder") : t("empty")}</p>
      ) : (
        <ol className="log" aria-label={t("title")}>
          {log.events.map((event) => {
            const what = subject(event.detail);
            const reason = typeof event.detail.reason === "string" ? event.detail.reason : null;
            return (
              <li key={event.id} className={`log-entry log-${event.kind}`}>
                <p className="log-what">
                  <strong>{t(`kinds.${event.kind}`)}</strong>
                  {what && <span> · {what}</span>}
                  {reason && t.has(`reasons.${reason}`) && <span className="muted"> · {t(`reasons.${reason}`)}</span>}
                </p>
                <p className="muted small">
                  <time dateTime={event.created_at}>{date(event.created_at, true)}</time>
                  {event.address && <span> · {t("from", { address: event.address })}</span>}
                </p>
              </li>
            );
          })}
        </ol>
      )}
      <nav aria-label={t("pages")} className="actions">
        {before && <a href="/account/security-log">{t("newest")}</a>}
        {log.next_before !== null && <a href={`/account/security-log?before=${log.next_before}`}>{t("older")}</a>}
      </nav>
      <p className="muted small">{t("kept", { days: 180 })}</p>
    </PageSection>
  );
}
