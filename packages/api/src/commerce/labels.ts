import type { AnswerLanguage } from "../language";

/**
 * The words people read beside the codes of commerce answers, in English and Korean (`Accept-Language`). A code
 * without a label of its own is shown as it is.
 */
const labels = {
  en: {
    order: { pending: "Awaiting payment", paid: "Paid", refunded: "Refunded", cancelled: "Cancelled" },
    grant: { purchase: "Purchase", grant: "Granted", bundle: "Bundle", subscription: "Subscription", trial: "Trial" },
    entitlement: { active: "Active", expired: "Expired", revoked: "Revoked" },
    access: {
      full: "Use and updates",
      updates_ended: "Use, no more updates",
      expired: "Access ended",
      revoked: "Revoked",
    },
    invoice: { draft: "Draft", open: "Due", paid: "Paid", void: "Void", uncollectible: "Uncollectible" },
    subscription: {
      active: "Active",
      trialing: "Trial",
      past_due: "Payment overdue",
      cancelled: "Cancelled",
      expired: "Expired",
    },
    pass: { name: "All-access pass" },
  },
  ko: {
    order: { pending: "결제 대기", paid: "결제 완료", refunded: "환불 완료", cancelled: "취소됨" },
    grant: { purchase: "구매", grant: "제공", bundle: "번들", subscription: "구독", trial: "체험" },
    entitlement: { active: "사용 중", expired: "만료됨", revoked: "회수됨" },
    access: {
      full: "사용 및 업데이트",
      updates_ended: "사용 가능, 업데이트 종료",
      expired: "사용 기간 종료",
      revoked: "회수됨",
    },
    invoice: { draft: "작성 중", open: "결제 예정", paid: "결제 완료", void: "무효", uncollectible: "회수 불가" },
    subscription: {
      active: "이용 중",
      trialing: "체험 중",
      past_due: "결제 연체",
      cancelled: "해지됨",
      expired: "만료됨",
    },
    pass: { name: "전 제품 이용권" },
  },
} as const;

type Kind = keyof (typeof labels)["en"];

export function label(language: AnswerLanguage, kind: Kind, code: string): string {
  return (labels[language][kind] as Record<string, string>)[code] ?? code;
}
