import type { Database } from "@shelf/db";
import type { Caller } from "../../auth/caller";
import { type AnswerLanguage, longDate } from "../../language";
import { isoSql, preparedRows } from "../../sql-text";
import type { PassCheckData } from "./schemas";

type PassRow = {
  tier: string | null;
  features: string[];
  allowed_apps: string[];
  ends_at: string | null;
  grace_ends_at: string | null;
  active: boolean;
  in_grace: boolean;
};

/**
 * The account's best all-access pass: a live one first (the longest-lasting), then one in its grace period, then the
 * one that lapsed last. A pass is live from `starts_at` until `ends_at`; one that lapsed without being cancelled
 * (a renewal that failed) keeps working `grace_days` longer; a cancelled or expired one does not.
 */
const PASS_SQL = `
  select s.tier, s.features, s.allowed_apps, ${isoSql("s.ends_at")} as ends_at,
    ${isoSql("g.grace_ends")} as grace_ends_at,
    s.status <> 'expired' and (s.ends_at is null or s.ends_at > now()) as active,
    s.status not in ('expired', 'cancelled') and s.ends_at <= now() and g.grace_ends > now() as in_grace
  from subscriptions s
  cross join lateral (select s.ends_at + make_interval(days => s.grace_days) as grace_ends) g
  where s.account_id = $1 and s.is_pass and s.starts_at <= now()
  order by (s.status <> 'expired' and (s.ends_at is null or s.ends_at > now())) desc,
    (s.status not in ('expired', 'cancelled') and g.grace_ends > now()) desc,
    s.ends_at is null desc, s.ends_at desc, s.id desc
  limit 1`;

const text = {
  en: {
    none: "This account has no all-access pass.",
    lapsed: (ended: string) => `The all-access pass ended on ${ended}.`,
    grace: (ended: string, graceEnds: string) =>
      `Your all-access pass expired on ${ended}. Renew it by ${graceEnds} to keep using your apps.`,
  },
  ko: {
    none: "이 계정에는 올 액세스 패스가 없습니다.",
    lapsed: (ended: string) => `올 액세스 패스가 ${ended}에 끝났습니다.`,
    grace: (ended: string, graceEnds: string) =>
      `올 액세스 패스가 ${ended}에 만료되었습니다. ${graceEnds}까지 갱신하면 앱을 계속 사용할 수 있습니다.`,
  },
} satisfies Record<AnswerLanguage, unknown>;

/** Where a person renews or manages a subscription (the account pages). */
export function renewalUrl(baseUrl: string): string {
  return `${baseUrl}/account/subscriptions`;
}

/** `GET /api/v1/entitlements/pass-check`: the account's all-access pass, its grace period and warning. */
export async function passCheck(
  db: Database,
  caller: Caller,
  language: AnswerLanguage,
  baseUrl: string,
): Promise<PassCheckData> {
  const [pass] = await preparedRows<PassRow>(db, PASS_SQL, [caller.accountId]);
  const words = text[language];
  if (!pass) {
    return {
      has_active_pass: false,
      in_grace_period: false,
      expires_at: null,
      grace_period_ends_at: null,
      grace_warning: null,
      tier: "none",
      features: [],
      allowed_apps: [],
      renewal_url: null,
      message: words.none,
    };
  }
  const live = pass.active || pass.in_grace;
  const ended = pass.ends_at ? longDate(pass.ends_at, language) : null;
  return {
    has_active_pass: live,
    in_grace_period: pass.in_grace,
    expires_at: pass.ends_at,
    grace_period_ends_at: pass.ends_at ? pass.grace_ends_at : null,
    grace_warning:
      pass.in_grace && ended && pass.grace_ends_at ? words.grace(ended, longDate(pass.grace_ends_at, language)) : null,
    tier: live ? (pass.tier ?? "all-access") : "none",
    features: live ? pass.features : [],
    allowed_apps: live ? pass.allowed_apps : [],
    renewal_url: renewalUrl(baseUrl),
    message: live ? null : ended ? words.lapsed(ended) : words.none,
  };
}
