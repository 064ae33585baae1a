/** Abilities an account API key can hold (contract section 5.6). */
export const accountAbilities = [
  "products.read",
  "orders.read",
  "subscriptions.read",
  "mcp.read",
  "setup-progress.write",
  "device.install",
  "device.entitlements",
  "device.activate",
  "device.usage",
  "support.report",
] as const;
export type AccountAbility = (typeof accountAbilities)[number];

/** Operator abilities: they may be stored on a key, but do nothing on an ordinary account's key. */
export const operatorAbilities = ["support.staff", "commerce.staff", "design.staff"] as const;

export const allAbilities = [...accountAbilities, ...operatorAbilities] as const;
export type Ability = (typeof allAbilities)[number];

/** What each kind of key holds from the start (contract section 5.7). */
export const defaultAbilities = {
  created: ["products.read", "mcp.read", "device.install"],
  device: [
    "products.read",
    "device.entitlements",
    "device.activate",
    "device.install",
    "device.usage",
    "support.report",
  ],
} as const satisfies Record<"created" | "device", readonly AccountAbility[]>;

/** An ability as people read it: what it lets its holder do, in the two languages the pages speak. */
export type AbilityRow = {
  /** Whose it is: an account's (keys, devices, connected apps), or the operator's (stored, ineffective elsewhere). */
  app: "account" | "operator";
  en: string;
  ko: string;
};

/**
 * Every ability, one row each: what the key, device and consent pages show beside its name. Its type makes a row for
 * every ability in `allAbilities` a must, so a new ability cannot reach a page without its words.
 */
export const abilityTable: Record<Ability, AbilityRow> = {
  "products.read": {
    app: "account",
    en: "read your library and products, check for updates",
    ko: "라이브러리와 제품 조회, 업데이트 확인",
  },
  "orders.read": {
    app: "account",
    en: "read orders, invoices and payment methods",
    ko: "주문, 청구서, 결제 수단 조회",
  },
  "subscriptions.read": { app: "account", en: "read subscriptions", ko: "구독 조회" },
  "mcp.read": { app: "account", en: "use the account MCP endpoint", ko: "계정 MCP 엔드포인트 사용" },
  "setup-progress.write": { app: "account", en: "record setup progress", ko: "설정 진행 상황 기록" },
  "device.install": { app: "account", en: "download and record installs", ko: "다운로드 및 설치 기록" },
  "device.entitlements": { app: "account", en: "check licenses and passes", ko: "라이선스와 패스 확인" },
  "device.activate": { app: "account", en: "activate devices", ko: "기기 활성화" },
  "device.usage": { app: "account", en: "upload usage", ko: "사용량 업로드" },
  "support.report": { app: "account", en: "send problem reports", ko: "문제 보고 전송" },
  "support.staff": {
    app: "operator",
    en: "operator only: no effect on an account's key",
    ko: "운영자 전용: 계정 키에서는 효과 없음",
  },
  "commerce.staff": {
    app: "operator",
    en: "operator only: no effect on an account's key",
    ko: "운영자 전용: 계정 키에서는 효과 없음",
  },
  "design.staff": {
    app: "operator",
    en: "operator only: no effect on an account's key",
    ko: "운영자 전용: 계정 키에서는 효과 없음",
  },
};

/** What an ability lets its holder do, in the page's language (Korean for `ko`, English otherwise). */
export function describeAbility(ability: Ability, language: string): string {
  const row = abilityTable[ability];
  return language === "ko" ? row.ko : row.en;
}

/** Whether a scope or stored name is an ability at all (an OAuth scope string, a row read back). */
export function isAbility(name: string): name is Ability {
  return Object.hasOwn(abilityTable, name);
}
