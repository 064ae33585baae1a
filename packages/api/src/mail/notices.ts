import type { schema } from "@shelf/db";
import type { Mail } from "@shelf/server/mail/mailer";
import { type AnswerLanguage, moneyIn } from "../language";
import { compose, greeting, type Words } from "./messages";

type OutboxRow = typeof schema.mailOutbox.$inferSelect;

/** A moment as its language writes it, 24-hour and in UTC, said so (mail has no reader's time zone). */
function moment(iso: string, language: AnswerLanguage): string {
  const format = new Intl.DateTimeFormat(language === "ko" ? "ko-KR" : "en-GB", {
    dateStyle: "long",
    timeStyle: "short",
    hourCycle: "h23",
    timeZone: "UTC",
  });
  return `${format.format(new Date(iso))} UTC`;
}

/** The security log's words for the kinds a notice is mailed for (the pages' `securityLog.kinds`). */
const KIND_WORDS = {
  en: {
    password_changed: "Password changed",
    password_reset: "Password reset by email link",
    key_created: "API key created",
    device_signed_in: "Device signed in",
    account_deleted: "Account deleted",
  },
  ko: {
    password_changed: "비밀번호 변경",
    password_reset: "메일 링크로 비밀번호 재설정",
    key_created: "API 키 생성",
    device_signed_in: "기기 로그인",
    account_deleted: "계정 삭제",
  },
} as const;

type NoticeKind = keyof (typeof KIND_WORDS)["en"];

/** What a security notice carries: a copy of its security log row, and the name of the person then. */
export type SecurityNoticeData = {
  kind: string;
  detail: Record<string, string | number | null>;
  address: string | null;
  created_at: string;
  name: string | null;
};

/** The kinds of the security log that mail a notice, and how a `key_created` of a device sign-in is told apart. */
export function noticeKind(kind: string, detail: Record<string, unknown>): NoticeKind | null {
  if (kind === "key_created") return detail.kind === "device" ? "device_signed_in" : "key_created";
  return kind === "password_changed" || kind === "password_reset" || kind === "account_deleted" ? kind : null;
}

function keyName(detail: Record<string, unknown>): string {
  const prefix = typeof detail.prefix === "string" ? `${detail.prefix}…` : "";
  const name = typeof detail.name === "string" ? detail.name : typeof detail.client === "string" ? detail.client : "";
  return name && prefix ? `${name} (${prefix})` : name || prefix;
}

function securityWords(language: AnswerLanguage, kind: NoticeKind, data: SecurityNoticeData): Words {
  const when = moment(data.created_at, language);
  const key = keyName(data.detail);
  const entry = [KIND_WORDS[language][kind], when, data.address].filter(Boolean).join(" · ");
  if (language === "ko") {
    const what = (
      {
        password_changed: [
          "Shelf 계정의 비밀번호가 바뀌었습니다",
          "계정의 비밀번호가 바뀌었고, 다른 브라우저는 모두 로그아웃되었습니다.",
        ],
        password_reset: [
          "Shelf 계정의 비밀번호가 재설정되었습니다",
          "메일로 보낸 링크로 비밀번호가 재설정되었고, 모든 브라우저가 로그아웃되었습니다.",
        ],
        key_created: ["Shelf 계정에 API 키가 만들어졌습니다", `계정에 새 API 키 ${key}가 만들어졌습니다.`],
        device_signed_in: ["새 기기가 Shelf 계정에 로그인했습니다", `새 기기가 계정에 로그인했습니다: ${key}.`],
        account_deleted: [
          "Shelf 계정이 삭제되었습니다",
          "계정이 삭제되었습니다. 키, 세션, 연결된 앱과 기기는 모두 끝났고, 주문과 영수증은 법에 따라 보관됩니다.",
        ],
      } as Record<NoticeKind, [string, string]>
    )[kind];
    return {
      subject: what[0],
      greeting: greeting(language, data.name),
      paragraphs: [what[1], `보안 기록: ${entry}`],
      action: "보안 기록 보기",
      ignore:
        kind === "account_deleted"
          ? "직접 삭제한 것이 아니라면 곧바로 판매자 고객 지원에 알려 주세요."
          : "본인이 한 일이 아니라면 곧바로 비밀번호를 바꾸고 모르는 키와 기기를 폐기하세요.",
    };
  }
  const what = (
    {
      password_changed: [
        "The password of your Shelf account was changed",
        "Your account's password was changed, and every other browser was signed out.",
      ],
      password_reset: [
        "The password of your Shelf account was reset",
        "Your account's password was reset through a link mailed to this address, and every browser was signed out.",
      ],
      key_created: [
        "An API key was created on your Shelf account",
        `A new API key was created on your account: ${key}.`,
      ],
      device_signed_in: [
        "A new device signed in to your Shelf account",
        `A new device signed in to your account: ${key}.`,
      ],
      account_deleted: [
        "Your Shelf account was deleted",
        "Your account was deleted. Its keys, sessions, connected apps and devices have all ended; orders and invoices are kept, as the law requires.",
      ],
    } as Record<NoticeKind, [string, string]>
  )[kind];
  return {
    subject: what[0],
    greeting: greeting(language, data.name),
    paragraphs: [what[1], `Security log: ${entry}`],
    action: "See the security log",
    ignore:
      kind === "account_deleted"
        ? "If you did not delete it, tell the seller's support at once."
        : "If this was not you, change your password at once and revoke any key or device you do not know.",
  };
}

/** What a withdrawal's confirmation carries. */
export type WithdrawalData = {
  number: string;
  items: string;
  total_cents: number;
  currency: string;
  requested_at: string;
  name: string | null;
};

function withdrawalWords(language: AnswerLanguage, data: WithdrawalData): Words {
  const total = moneyIn(language, data.total_cents, data.currency);
  const when = moment(data.requested_at, language);
  if (language === "ko") {
    return {
      subject: `주문 ${data.number}의 청약철회 요청을 받았습니다`,
      greeting: greeting(language, data.name),
      paragraphs: [
        `${when}에 주문 ${data.number}(${data.items}, 합계 ${total})의 청약철회를 요청하셨습니다.`,
        "판매자 고객 지원이 요청을 확인하고 환불하며, 이 주소로 알려 드립니다. 결제 페이지의 주문에서 요청을 볼 수 있습니다.",
      ],
      action: "결제 페이지 열기",
      ignore: "요청하지 않았다면 판매자 고객 지원에 알려 주세요.",
    };
  }
  return {
    subject: `We received your withdrawal from order ${data.number}`,
    greeting: greeting(language, data.name),
    paragraphs: [
      `On ${when} you asked to withdraw from order ${data.number} (${data.items}; total ${total}).`,
      "The seller's support checks the request, refunds the order and writes to you at this address. The order on your billing page shows the request.",
    ],
    action: "Open the billing page",
    ignore: "If you did not ask for this, tell the seller's support.",
  };
}

/** A queued mail, written out in its language. */
export function renderOutboxMail(row: OutboxRow, baseUrl: string): Mail {
  const language: AnswerLanguage = row.language === "ko" ? "ko" : "en";
  if (row.kind === "withdrawal_requested") {
    const data = row.data as WithdrawalData;
    return compose(row.recipient, language, withdrawalWords(language, data), `${baseUrl}/account/billing`);
  }
  const data = row.data as SecurityNoticeData;
  const kind = noticeKind(data.kind, data.detail);
  if (!kind) throw new Error(`no notice is written for ${data.kind}`);
  const words = securityWords(language, kind, data);
  if (kind === "account_deleted") return compose(row.recipient, language, { ...words, action: undefined });
  return compose(row.recipient, language, words, `${baseUrl}/account/security-log`);
}
