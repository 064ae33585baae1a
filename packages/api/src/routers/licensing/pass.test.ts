import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAccountWithKey } from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { grantPass } from "../subscriptions/admin-service";
import { PassCheckData } from "./schemas";

const { testDb, request } = withApiSuite();

describe("GET /api/v1/entitlements/pass-check", () => {
  it("answers the pass, its grace period and warning in Korean or English", async () => {
    const { account, key } = await createAccountWithKey(testDb.db);
    const none = await request("/api/v1/entitlements/pass-check", { key });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({
      has_active_pass: false,
      in_grace_period: false,
      expires_at: null,
      grace_period_ends_at: null,
      grace_warning: null,
      tier: "none",
      features: [],
      allowed_apps: [],
      renewal_url: null,
      message: "This account has no all-access pass.",
    });
    expect(none.headers.get("content-language")).toBe("en");
    expect(none.headers.get("vary")).toBe("Accept-Language");

    const until = new Date(Date.now() + 30 * 86_400_000);
    await grantPass(testDb.db, {
      accountId: account.id,
      until,
      graceDays: 5,
      tier: "pro",
      features: ["sync", "ai"],
      apps: ["com.example.one", "tool-two"],
    });
    const active = await request("/api/v1/entitlements/pass-check", { key });
    expect(contractMismatch(PassCheckData, active.text)).toBeNull();
    expect(active.body).toMatchObject({
      has_active_pass: true,
      in_grace_period: false,
      expires_at: until.toISOString(),
      grace_warning: null,
      tier: "pro",
      features: ["sync", "ai"],
      allowed_apps: ["com.example.one", "tool-two"],
      renewal_url: "http://shelf.test/account/subscriptions",
      message: null,
    });
    expect(Date.parse(active.body.grace_period_ends_at) - until.getTime()).toBe(5 * 86_400_000);

    // Lapsed two days ago without being cancelled: still working, with a warning, until the grace period ends.
    const ended = new Date("2026-11-20T12:00:00Z");
    await testDb.db
      .update(schema.subscriptions)
      .set({ startsAt: new Date("2026-01-01T00:00:00Z"), endsAt: ended, graceDays: 365 })
      .where(eq(schema.subscriptions.accountId, account.id));
    const english = await request("/api/v1/entitlements/pass-check", { key, headers: { "accept-language": "en-US" } });
    expect(english.body).toMatchObject({ has_active_pass: true, in_grace_period: true, tier: "pro" });
    expect(english.body.grace_warning).toMatch(/^Your all-access pass expired on November 20, 2026\. Renew it by /);
    const korean = await request("/api/v1/entitlements/pass-check", {
      key,
      headers: { "accept-language": "ko-KR,ko;q=0.9,en;q=0.5" },
    });
    expect(korean.headers.get("content-language")).toBe("ko");
    expect(korean.body.grace_warning).toMatch(/^올 액세스 패스가 2026년 11월 20일에 만료되었습니다\./);
    expect(
      (await request("/api/v1/entitlements/pass-check", { key, headers: { "accept-language": "fr" } })).headers.get(
        "content-language",
      ),
    ).toBe("en");

    // A cancelled pass gets no grace: it ended when it ended.
    await testDb.db
      .update(schema.subscriptions)
      .set({ status: "cancelled" })
      .where(eq(schema.subscriptions.accountId, account.id));
    const lapsed = await request("/api/v1/entitlements/pass-check", { key, headers: { "accept-language": "ko" } });
    expect(lapsed.body).toMatchObject({
      has_active_pass: false,
      in_grace_period: false,
      tier: "none",
      features: [],
      grace_warning: null,
      message: "올 액세스 패스가 2026년 11월 20일에 끝났습니다.",
    });
  });
});
