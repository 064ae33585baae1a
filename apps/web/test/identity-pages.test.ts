import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { recordSecret } from "@shelf/api/testing";
import { linkIn, parseMail, startTestSmtpServer, type TestSmtpServer } from "@shelf/api/testing/smtp";
import type { TestDatabase } from "@shelf/db/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSeriousViolations, openWebPageSuite, shots, signIn, type WebPageSuite } from "./page-suite";
import { type RunningServer, startServer } from "./server";

/**
 * Account recovery, the security log, the footer and the terms in Debian's Chromium against the production build,
 * with mail received by a real SMTP server in this process: forgot password, the mail, its link followed, the new
 * password, every old session ended, the link refused a second time; the log of the account's changes; the business
 * disclosure and the terms in the footer, their acceptance at sign-up. Both languages, desktop and 390 px, axe,
 * screenshots in test-results/pages.
 */

let testDb: TestDatabase;
let sql: postgres.Sql;
let server: RunningServer;
let browser: Browser;
let smtp: TestSmtpServer;

const PASSWORD = "correct horse battery staple";
const TERMS_URL = "https://shelf.test/legal/terms";
const PRIVACY_URL = "https://shelf.test/legal/privacy";
const sample = (lang: string) => ({
  company_name: `Shelf Test Company ${lang}`,
  representative_name: `Representative ${lang}`,
  business_registration_number: "123-45-67890",
  mail_order_registration_number: `2026-Seoul-${lang}`,
  address: `1 Test Street ${lang}`,
  phone: "02-123-4567",
  email: "hello@shelf.test",
  website: "https://shelf.test",
  ftc_biz_info_url: "https://www.ftc.go.kr/bizCommPop.do?wrkr_no=1234567890",
});
// The English number as the registration's English form writes it ("No. ..."), after the footer's own label.
const DISCLOSURE = {
  ko: { ...sample("ko"), company_name: "셸프 테스트 회사" },
  en: { ...sample("en"), mail_order_registration_number: "No. 2026-Seoul Gangnam-01234" },
};
const NEW_PASSWORD = "a whole new passphrase";

let suite: WebPageSuite | undefined;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  suite = await openWebPageSuite({
    name: "recovery",
    env: {
      SHELF_SMTP_URL: smtp.url,
      SHELF_MAIL_FROM: "Shelf <no-reply@shelf.test>",
      SHELF_DISCLOSURE: JSON.stringify(DISCLOSURE),
      SHELF_TERMS_URL: TERMS_URL,
      SHELF_PRIVACY_URL: PRIVACY_URL,
    },
  });
  ({ testDb, sql, server, browser } = suite);
}, 240_000);

afterAll(async () => {
  await suite?.close();
  await smtp?.close();
});

let emails = 0;
function newEmail(): string {
  emails += 1;
  return `recover${emails}-${Date.now()}@example.test`;
}

async function newContext(locale = "en-US", phone = false): Promise<BrowserContext> {
  return browser.newContext({
    locale,
    baseURL: server.url,
    ...(phone ? { viewport: { width: 390, height: 844 } } : {}),
  });
}

/**
 * Signs up through the page. Sign-up mails a verification link: through the main server's SMTP it is taken here (and
 * returned), so that the next mail a test waits for is the one it asked for.
 */
async function signUp(
  page: Page,
  email: string,
  labels = { email: "Email", password: "Password" },
  mail: "smtp" | "outbox" = "smtp",
) {
  await page.goto("/sign-up");
  await page.getByLabel(labels.email).fill(email);
  await page.getByLabel(labels.password).fill(PASSWORD);
  // The terms box is there when the server publishes terms (the main server here does).
  const terms = page.locator("main input[name=accept_terms]");
  if ((await terms.count()) > 0) await terms.check();
  await page.locator("main form button[type=submit]").click();
  await page.waitForURL(/\/account$/);
  if (mail === "outbox") return undefined;
  const verification = await smtp.next(email);
  expect(verification.subject).toMatch(/^(Verify your Shelf email address|Shelf 이메일 주소 확인)$/);
  return verification;
}

/** The path and fragment of a mail's link to this server (mails name it as localhost). */
function pathOf(mail: { text: string }, route: string): string {
  const link = new URL(linkIn(mail as Parameters<typeof linkIn>[0], "http://localhost:"));
  expect(link.pathname).toBe(route);
  recordSecret(link.hash.slice(1));
  return `${link.pathname}${link.hash}`;
}

/** axe-core with no serious or critical violation, and nothing wider than the window. */
async function checkPage(page: Page, label: string, shot: string): Promise<void> {
  await expectNoSeriousViolations(page, label);
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  expect(widths.scroll, `${label}: no sideways scrolling`).toBeLessThanOrEqual(widths.inner);
  await page.screenshot({ path: `${shots}/${shot}.png`, fullPage: true });
}

describe("mail at start-up", () => {
  it("says where mail goes, without the SMTP password", () => {
    const output = server.output();
    expect(output).toMatch(/Mail: sent through smtp:\/\/127\.0\.0\.1:\d+/);
    expect(output).not.toContain("mail-secret");
  });
});

describe("forgot password in the browser, through real SMTP", () => {
  it("mails a link; following it sets a new password, ends the old sessions, and works once", async () => {
    const email = newEmail();
    // Two browsers signed in: both are signed out by the reset.
    const first = await newContext();
    const firstPage = await first.newPage();
    await signUp(firstPage, email);
    const second = await newContext();
    const secondPage = await second.newPage();
    await signIn(secondPage, email, PASSWORD);
    await secondPage.waitForURL(/\/account$/);
    // A wrong password, for the log.
    const third = await newContext();
    const page = await third.newPage();
    await signIn(page, email, "not the password");
    await page.locator("main").getByRole("alert").waitFor();

    await page.goto("/sign-in");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL(/\/forgot-password$/);
    // A refusal keeps what was typed.
    await page.getByLabel("Email").fill("someone@localhost");
    await page.getByRole("button", { name: "Send the link", exact: true }).click();
    await page.locator("main").getByRole("alert").waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe("someone@localhost");
    // The answer takes the focus (FormMessage), so the keyboard and a screen reader land on it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("alert");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send the link", exact: true }).click();
    const sent = page.locator("main").getByRole("status");
    await sent.waitFor();
    expect(await sent.textContent()).toContain(`If an account uses ${email}`);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("status");
    await checkPage(page, "en forgot-password sent", "en-forgot-password-sent");

    const mail = await smtp.next(email);
    expect(mail.subject).toBe("Reset your Shelf password");
    expect(mail.from).toContain("no-reply@shelf.test");
    const link = linkIn(mail, `${server.url.replace("127.0.0.1", "localhost")}/reset-password#`).replace(
      "localhost",
      "127.0.0.1",
    );
    recordSecret(new URL(link).hash.slice(1));
    expect(mail.html).toContain("/reset-password#");

    await page.goto(link);
    await page.getByLabel("New password").waitFor();
    // The secret is taken out of the address bar.
    await page.waitForFunction(() => window.location.hash === "");
    expect(new URL(page.url()).pathname).toBe("/reset-password");
    await checkPage(page, "en reset-password", "en-reset-password");
    await page.getByLabel("New password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    const done = page.locator("main").getByRole("status");
    await done.waitFor();
    expect(await done.textContent()).toContain("2 sessions were signed out");

    // The old sessions are over: both browsers are sent to sign in.
    for (const old of [firstPage, secondPage]) {
      await old.goto("/account");
      await old.waitForURL(/\/sign-in/);
    }
    // The reset is told by mail too, with its security log entry (sent by the server's outbox, once).
    const notice = await smtp.next(email);
    expect(notice.subject).toBe("The password of your Shelf account was reset");
    expect(notice.text).toContain("Security log: Password reset by email link · ");
    expect(
      smtp.received.filter((received) => received.to.includes(email) && received.subject === notice.subject),
    ).toHaveLength(1);
    // The old password is refused, the new one works.
    await signIn(firstPage, email, PASSWORD);
    await firstPage.locator("main").getByRole("alert").waitFor();
    await signIn(firstPage, email, NEW_PASSWORD);
    await firstPage.waitForURL(/\/account$/);

    // The same link again: said dead at once, before any password is typed, with a way to ask for a new one.
    const again = await newContext();
    const againPage = await again.newPage();
    await againPage.goto(link);
    await againPage.locator("main").getByRole("alert").waitFor();
    expect(await againPage.getByLabel("New password").count()).toBe(0);
    expect(await againPage.locator("main").getByRole("alert").textContent()).toContain("This link does not work");
    expect(await againPage.getByRole("link", { name: "Ask for a new link" }).getAttribute("href")).toBe(
      "/forgot-password",
    );
    const live = await sql<{ n: number }[]>`select count(*)::int as n from password_resets where used_at is null`;
    expect(live[0]?.n).toBe(0);

    // The security log tells the story, newest first.
    await firstPage.goto("/account/security-log");
    const entries = firstPage.locator("ol.log > li strong");
    expect(await entries.allTextContents()).toEqual([
      "Signed in",
      "Sign-in failed: wrong password",
      "Password reset by email link",
      "Sign-in failed: wrong password",
      "Signed in",
      "Signed in",
    ]);
    await checkPage(firstPage, "en security log", "en-settings-security-log");

    // Another account sees none of it.
    const stranger = await newContext();
    const strangerPage = await stranger.newPage();
    await signUp(strangerPage, newEmail());
    await strangerPage.goto("/account/security-log");
    expect(await strangerPage.locator("ol.log > li strong").allTextContents()).toEqual(["Signed in"]);
    for (const context of [first, second, third, again, stranger]) await context.close();
  });

  it("answers an unknown address as it answers a known one, and mails nothing", async () => {
    const context = await newContext();
    const page = await context.newPage();
    const before = smtp.received.length;
    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill("nobody-at-all@example.test");
    await page.getByRole("button", { name: "Send the link", exact: true }).click();
    await page.locator("main").getByRole("status").waitFor();
    expect(await page.locator("main").getByRole("status").textContent()).toBe(
      "If an account uses nobody-at-all@example.test, a link to set a new password is on its way there.",
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.received.length).toBe(before);
    await context.close();
  });

  it("speaks Korean, with the mail in Korean, and fits 390 px on every page", async () => {
    for (const [locale, lang] of [
      ["en-US", "en"],
      ["ko-KR", "ko"],
    ] as const) {
      const email = newEmail();
      const context = await newContext(locale, true);
      const page = await context.newPage();
      const labels =
        lang === "ko" ? { email: "이메일", password: "비밀번호" } : { email: "Email", password: "Password" };
      await signUp(page, email, labels);
      await page.goto("/account/security-log");
      expect(await page.getAttribute("html", "lang")).toBe(lang);
      await checkPage(page, `${lang} phone security log`, `${lang}-phone-settings-security-log`);
      const signedIn = await newContext(locale, true);
      const anonymous = await signedIn.newPage();
      await anonymous.goto("/forgot-password");
      await checkPage(anonymous, `${lang} phone forgot-password`, `${lang}-phone-forgot-password`);
      await anonymous.getByLabel(labels.email).fill(email);
      await anonymous.locator("main form button[type=submit]").click();
      await anonymous.locator("main").getByRole("status").waitFor();
      const mail = await smtp.next(email);
      expect(mail.subject).toBe(lang === "ko" ? "Shelf 비밀번호 재설정" : "Reset your Shelf password");
      const link = new URL(linkIn(mail, "http://localhost:"));
      recordSecret(link.hash.slice(1));
      await anonymous.goto(`/reset-password${link.hash}`);
      await anonymous.getByLabel(lang === "ko" ? "새 비밀번호" : "New password").waitFor();
      await checkPage(anonymous, `${lang} phone reset-password`, `${lang}-phone-reset-password`);
      await anonymous.goto("/reset-password");
      await anonymous.locator("main").getByRole("alert").waitFor();
      await checkPage(anonymous, `${lang} phone reset-password without link`, `${lang}-phone-reset-password-invalid`);
      if (lang === "ko") {
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto("/account/security-log");
        expect(await page.locator("ol.log > li strong").first().textContent()).toBe("로그인");
        await checkPage(page, "ko security log", "ko-settings-security-log");
        await anonymous.goto("/forgot-password");
        expect(await anonymous.getByRole("heading", { level: 1 }).textContent()).toBe("비밀번호 찾기");
      }
      await context.close();
      await signedIn.close();
    }
  });
});

describe("the footer and the terms", () => {
  it("shows the business disclosure (as /api/public/disclosure publishes it) and the terms, in both languages", async () => {
    const published = (await (await fetch(`${server.url}/api/public/disclosure`)).json()) as typeof DISCLOSURE;
    expect(published).toEqual(DISCLOSURE);
    for (const [locale, lang] of [
      ["en-US", "en"],
      ["ko-KR", "ko"],
    ] as const) {
      for (const phone of [false, true]) {
        const context = await newContext(locale, phone);
        const page = await context.newPage();
        await page.goto("/sign-in");
        const footer = page.locator("footer");
        const text = (await footer.textContent()) ?? "";
        for (const value of Object.values(published[lang])) {
          if (!value.startsWith("https://www.ftc")) expect(text).toContain(value);
        }
        expect(text, "a label and its value say 'No.' once").not.toMatch(/\bno\.\s*no\./i);
        const other = lang === "ko" ? "en" : "ko";
        expect(text).not.toContain(published[other].company_name);
        expect(
          await footer
            .getByRole("link", { name: lang === "ko" ? "이용약관" : "Terms of service" })
            .getAttribute("href"),
        ).toBe(TERMS_URL);
        expect(
          await footer
            .getByRole("link", { name: lang === "ko" ? "개인정보처리방침" : "Privacy policy" })
            .getAttribute("href"),
        ).toBe(PRIVACY_URL);
        await checkPage(
          page,
          `${lang} footer${phone ? " phone" : ""}`,
          `${lang}${phone ? "-phone" : ""}-footer-sign-in`,
        );
        await context.close();
      }
    }
  });

  it("records the acceptance at sign-up; a sign-up without it is refused and keeps what was typed", async () => {
    const email = newEmail();
    const context = await newContext("en-US", true);
    const page = await context.newPage();
    await page.goto("/sign-up");
    const terms = page.locator("main").getByRole("link", { name: "terms of service" });
    expect(await terms.getAttribute("href")).toBe(TERMS_URL);
    await checkPage(page, "en phone sign-up with terms", "en-phone-sign-up-terms");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    // Past the browser's own check: the server refuses too.
    await page.locator("main input[name=accept_terms]").evaluate((box) => box.removeAttribute("required"));
    await page.locator("main form button[type=submit]").click();
    await page.locator("main").getByRole("alert").waitFor();
    expect(await page.locator("main").textContent()).toContain("Accept the terms to create an account.");
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    const none = await sql<{ n: number }[]>`select count(*)::int as n from accounts where email = ${email}`;
    expect(none[0]?.n).toBe(0);
    await page.locator("main input[name=accept_terms]").check();
    await page.locator("main form button[type=submit]").click();
    await page.waitForURL(/\/account$/);
    const [row] = await sql<{ accepted_at: Date | null; terms: string; privacy: string; language: string }[]>`
      select terms_accepted_at as accepted_at, accepted_terms_url as terms, accepted_privacy_url as privacy, language
      from accounts where email = ${email}`;
    expect(row).toMatchObject({ terms: TERMS_URL, privacy: PRIVACY_URL, language: "en" });
    expect(row?.accepted_at).toBeInstanceOf(Date);
    await context.close();
  });
});

describe("signed-in browsers", () => {
  it("lists the account's browsers and signs one out, which must then sign in again", async () => {
    const email = newEmail();
    const mine = await newContext();
    const page = await mine.newPage();
    await signUp(page, email);
    const other = await newContext("ko-KR", true);
    const otherPage = await other.newPage();
    await otherPage.goto("/sign-in");
    await otherPage.getByLabel("이메일").fill(email);
    await otherPage.getByLabel("비밀번호").fill(PASSWORD);
    await otherPage.locator("main form button[type=submit]").click();
    await otherPage.waitForURL(/\/account$/);

    await page.goto("/account/sessions");
    const entries = page.locator("ol.log > li");
    expect(await entries.count()).toBe(2);
    expect(await entries.first().textContent()).toContain("This browser");
    expect(await entries.nth(1).textContent()).toContain("from 127.0.0.1");
    await checkPage(page, "en sessions", "en-settings-sessions");
    await otherPage.goto("/account/sessions");
    await checkPage(otherPage, "ko phone sessions", "ko-phone-settings-sessions");
    expect(await otherPage.locator("ol.log > li").first().textContent()).toContain("이 브라우저");

    await entries.nth(1).getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Sign it out" }).click();
    await page.waitForFunction(() => document.querySelectorAll("ol.log > li").length === 1);
    await otherPage.goto("/account");
    await otherPage.waitForURL(/\/sign-in/);
    // This browser is still signed in.
    await page.goto("/account");
    expect(new URL(page.url()).pathname).toBe("/account");
    await mine.close();
    await other.close();
  });
});

describe("the person's name", () => {
  it("is changed on the profile page, shown at once, and cleared when left empty", async () => {
    const context = await newContext("en-US", true);
    const page = await context.newPage();
    await signUp(page, newEmail());
    await page.goto("/account/profile");
    await page.getByLabel("Name", { exact: true }).fill("Grace Hopper");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.locator("main").getByRole("status").waitFor();
    expect(await page.locator("main").getByRole("status").textContent()).toBe("Saved: Grace Hopper.");
    await page.reload();
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Grace Hopper");
    await checkPage(page, "en phone security with name", "en-phone-settings-security-name");
    await page.getByLabel("Name", { exact: true }).fill("");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByText("Name removed.").waitFor();
    // Past the browser's own limit, the server's refusal speaks of the name, not of an API key.
    const name = page.getByLabel("Name", { exact: true });
    await name.evaluate((input) => input.removeAttribute("maxlength"));
    await name.fill("x".repeat(201));
    await page.getByRole("button", { name: "Save name" }).click();
    await page.locator("main").getByRole("alert").waitFor();
    const said = (await page.locator("main form", { has: name }).textContent()) ?? "";
    expect(said).toContain("Use up to 200 characters for your name");
    expect(said).not.toMatch(/\bkey\b/);
    await context.close();
  });
});

describe("mail without SHELF_SMTP_URL", () => {
  it("says at start-up that mail goes to the data folder's outbox, and a reset mail there works", async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-outbox-"));
    const alone = await startServer({
      DATABASE_URL: testDb.url,
      SHELF_DATA_DIR: folder,
      SHELF_SMTP_URL: "",
      SHELF_RATE_LIMIT_NAMESPACE: `outbox-${Date.now()}`,
    });
    try {
      const outbox = path.join(folder, "outbox");
      expect(alone.output()).toContain(`Mail: no SHELF_SMTP_URL, so each mail is written to ${outbox}`);
      const email = newEmail();
      const context = await browser.newContext({ locale: "en-US", baseURL: alone.url });
      const page = await context.newPage();
      const mails = async (count: number) => {
        let files: string[] = [];
        for (let i = 0; i < 50 && files.length < count; i += 1) {
          files = (await fs.readdir(outbox).catch(() => [])).filter((file) => file.endsWith(".eml")).sort();
          if (files.length < count) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return files;
      };
      await signUp(page, email, undefined, "outbox");
      // Sign-up's verification mail is there first.
      const [verification] = await mails(1);
      expect(await fs.readFile(path.join(outbox, verification as string), "utf8")).toContain(
        "Subject: Verify your Shelf email address",
      );
      await context.clearCookies();
      await page.goto("/forgot-password");
      await page.getByLabel("Email").fill(email);
      await page.getByRole("button", { name: "Send the link", exact: true }).click();
      await page.locator("main").getByRole("status").waitFor();
      const files = (await mails(2)).filter((file) => file !== verification);
      expect(files).toHaveLength(1);
      const raw = await fs.readFile(path.join(outbox, files[0] as string), "utf8");
      expect(raw).toContain(`To: ${email}`);
      const mail = await parseMail(raw);
      expect(mail.to).toEqual([email]);
      const link = linkIn(mail, "http://localhost:");
      recordSecret(new URL(link).hash.slice(1));
      await page.goto(`/reset-password${new URL(link).hash}`);
      await page.getByLabel("New password").fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Set password" }).click();
      await page.locator("main").getByRole("status").waitFor();
      await signIn(page, email, NEW_PASSWORD);
      await page.waitForURL(/\/account$/);
      await context.close();
    } finally {
      await alone.stop();
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});

/** Words of the English pages that must never show on their Korean versions. */
const ENGLISH_ONLY = ["Verify", "verified", "Delete", "Send the link", "email", "Confirm"];

async function expectNoEnglish(page: Page, label: string) {
  // biome-ignore lint/performance/useDomNodeTextContent: what is shown, not the scripts' text
  const text = (await page.locator("body").innerText()).replace(/[\w.+-]+@[\w.-]+/g, "");
  for (const word of ENGLISH_ONLY) expect(text, `${label}: "${word}" on a Korean page`).not.toContain(word);
}

async function logKinds(email: string): Promise<string[]> {
  const rows = await sql<{ kind: string }[]>`select e.kind from security_events e join accounts a on a.id = e.account_id
    where lower(a.email) = lower(${email}) order by e.id`;
  return rows.map((row) => row.kind);
}

describe("email verification at sign-up, through real SMTP", () => {
  it("shows the account unverified with a banner until the mailed link is followed; send again replaces the link", async () => {
    for (const [locale, lang, phone] of [
      ["en-US", "en", false],
      ["ko-KR", "ko", true],
    ] as const) {
      const words =
        lang === "ko"
          ? {
              labels: { email: "이메일", password: "비밀번호" },
              sendAgain: "링크 다시 보내기",
              unverified: "확인 안 됨",
              verified: "확인됨",
              confirm: "확인",
              done: "주소가 확인되었습니다",
              subject: "Shelf 이메일 주소 확인",
              logged: "이메일 주소 확인",
            }
          : {
              labels: { email: "Email", password: "Password" },
              sendAgain: "Send the link again",
              unverified: "Not verified",
              verified: "Verified",
              confirm: "Confirm",
              done: "is verified",
              subject: "Verify your Shelf email address",
              logged: "Email address verified",
            };
      const email = newEmail();
      const context = await newContext(locale, phone);
      const page = await context.newPage();
      const first = await signUp(page, email, words.labels);
      expect(first?.subject).toBe(words.subject);
      expect(first?.html).toContain("/verify-email#");
      const firstPath = pathOf(first as NonNullable<typeof first>, "/verify-email");
      // Everything works meanwhile; a banner asks on every page.
      const banner = page.locator(".verify-banner");
      expect(await banner.textContent()).toContain(email);
      await checkPage(page, `${lang} unverified account`, `${lang}${phone ? "-phone" : ""}-account-unverified`);
      await page.goto("/account/profile");
      expect(await page.locator("main").textContent()).toContain(words.unverified);
      await checkPage(
        page,
        `${lang} security unverified`,
        `${lang}${phone ? "-phone" : ""}-settings-security-unverified`,
      );
      if (lang === "ko") await expectNoEnglish(page, "ko security");

      // Send again: a new mail, and the first link stops working.
      await banner.getByRole("button", { name: words.sendAgain }).click();
      await banner.getByRole("status").filter({ hasText: /./ }).waitFor();
      const second = await smtp.next(email);
      const secondPath = pathOf(second, "/verify-email");
      const stranger = await newContext(locale, phone);
      const other = await stranger.newPage();
      await other.goto(firstPath);
      await other.getByRole("button", { name: words.confirm, exact: true }).click();
      await other.locator("main").getByRole("alert").waitFor();
      await checkPage(other, `${lang} verify refused`, `${lang}${phone ? "-phone" : ""}-verify-email-invalid`);

      // The link works without being signed in (the link is the proof), once.
      await other.goto(secondPath);
      await other.waitForFunction(() => window.location.hash === "");
      await checkPage(other, `${lang} verify`, `${lang}${phone ? "-phone" : ""}-verify-email`);
      if (lang === "ko") await expectNoEnglish(other, "ko verify");
      await other.getByRole("button", { name: words.confirm, exact: true }).click();
      const done = other.locator("main").getByRole("status");
      await done.waitFor();
      expect(await done.textContent()).toContain(words.done);
      await checkPage(other, `${lang} verified`, `${lang}${phone ? "-phone" : ""}-verify-email-done`);
      await other.goto(secondPath);
      await other.getByRole("button", { name: words.confirm, exact: true }).click();
      await other.locator("main").getByRole("alert").waitFor();

      await page.goto("/account/profile");
      expect(await page.locator(".verify-banner").count()).toBe(0);
      expect(await page.locator("main .badge").first().textContent()).toBe(words.verified);
      await page.goto("/account/security-log");
      expect(await page.locator("ol.log > li strong").first().textContent()).toBe(words.logged);
      expect(await logKinds(email)).toEqual(["sign_in", "email_verified"]);
      await context.close();
      await stranger.close();
    }
  });
});

describe("change of email", () => {
  it("checks the password, refuses an address in use keeping what was typed, and changes when the new address confirms", async () => {
    const email = newEmail();
    const taken = newEmail();
    const target = newEmail();
    const context = await newContext();
    const page = await context.newPage();
    await signUp(page, email);
    const takenContext = await newContext();
    await signUp(await takenContext.newPage(), taken);
    await takenContext.close();
    // Another browser of the account stays signed in through the change.
    const second = await newContext("ko-KR", true);
    const secondPage = await second.newPage();
    await secondPage.goto("/sign-in");
    await secondPage.getByLabel("이메일").fill(email);
    await secondPage.getByLabel("비밀번호").fill(PASSWORD);
    await secondPage.locator("main form button[type=submit]").click();
    await secondPage.waitForURL(/\/account$/);

    await page.goto("/account/profile");
    await page.getByLabel("New email").fill(taken);
    await page.locator("#email-current-password").fill(PASSWORD);
    await page.getByRole("button", { name: "Send the link", exact: true }).click();
    await page.locator("main").getByRole("alert").waitFor();
    expect(await page.locator("main").getByRole("alert").textContent()).toBe("Another account uses this address.");
    expect(await page.getByLabel("New email").inputValue()).toBe(taken);
    await page.getByLabel("New email").fill(target);
    await page.locator("#email-current-password").fill("not my password");
    await page.getByRole("button", { name: "Send the link", exact: true }).click();
    await page.locator("#email-current-password-error").waitFor();
    expect(await page.getByLabel("New email").inputValue()).toBe(target);
    await page.locator("#email-current-password").fill(PASSWORD);
    await page.getByRole("button", { name: "Send the link", exact: true }).click();
    const sent = page.locator("main").getByRole("status").filter({ hasText: target });
    await sent.waitFor();
    await checkPage(page, "en security change sent", "en-settings-security-email-sent");

    const mail = await smtp.next(target);
    expect(mail.subject).toBe("Confirm your new Shelf email address");
    const changePath = pathOf(mail, "/verify-email");
    // Nothing changes before the link is followed.
    const [before] = await sql<{ email: string }[]>`select email from accounts where lower(email) = lower(${email})`;
    expect(before?.email).toBe(email);
    await secondPage.goto(changePath);
    await secondPage.getByRole("button", { name: "확인", exact: true }).click();
    const done = secondPage.locator("main").getByRole("status");
    await done.waitFor();
    expect(await done.textContent()).toContain(target);
    await checkPage(secondPage, "ko phone email changed", "ko-phone-verify-email-changed");
    await expectNoEnglish(secondPage, "ko email changed");

    const notice = await smtp.next(email);
    expect(notice.subject).toBe("The email of your Shelf account was changed");
    expect(notice.text).toContain(target);
    // Both browsers are still signed in, under the new address; the old address signs in no more.
    for (const signedIn of [page, secondPage]) {
      await signedIn.goto("/account/profile");
      expect(new URL(signedIn.url()).pathname).toBe("/account/profile");
      expect(await signedIn.locator(".account-email").textContent()).toBe(target);
    }
    await secondPage.goto("/account/profile");
    await checkPage(secondPage, "ko phone security", "ko-phone-settings-security-email");
    await expectNoEnglish(secondPage, "ko security after change");
    await page.goto("/account/security-log");
    expect(await page.locator("ol.log > li").first().textContent()).toContain(`${email} → ${target}`);
    expect(await logKinds(target)).toContain("email_changed");
    const anonymous = await newContext();
    const anonymousPage = await anonymous.newPage();
    await signIn(anonymousPage, email, PASSWORD);
    await anonymousPage.locator("main").getByRole("alert").waitFor();
    await signIn(anonymousPage, target, PASSWORD);
    await anonymousPage.waitForURL(/\/account$/);
    await anonymous.close();
    await context.close();
    await second.close();
  });
});

describe("account deletion", () => {
  it("says what happens, needs the password and the email typed, then anonymises the account and signs it out", async () => {
    for (const [locale, lang] of [
      ["ko-KR", "ko"],
      ["en-US", "en"],
    ] as const) {
      for (const phone of [false, true]) {
        const context = await newContext(locale, phone);
        const page = await context.newPage();
        const labels =
          lang === "ko" ? { email: "이메일", password: "비밀번호" } : { email: "Email", password: "Password" };
        const email = newEmail();
        await signUp(page, email, labels);
        await page.goto("/account/delete");
        const main = (await page.locator("main").textContent()) ?? "";
        expect(main).toContain(lang === "ko" ? "API 키가 폐기" : "Every API key");
        expect(main).toContain(lang === "ko" ? "주문과 청구서는" : "Orders and invoices are kept");
        await checkPage(page, `${lang} delete`, `${lang}${phone ? "-phone" : ""}-settings-delete-account`);
        if (lang === "ko") {
          await expectNoEnglish(page, "ko delete");
          await context.close();
          continue;
        }
        if (!phone) {
          await context.close();
          continue;
        }
        // A wrong confirmation is refused and keeps what was typed; nothing happens.
        await page.getByLabel(`Type your email (${email}) to confirm`).fill("someone-else@example.test");
        await page.locator("#delete-current-password").fill(PASSWORD);
        await page.getByRole("button", { name: "Delete my account" }).click();
        await page.locator("main").getByRole("alert").waitFor();
        expect(await page.getByLabel(`Type your email (${email}) to confirm`).inputValue()).toBe(
          "someone-else@example.test",
        );
        await page.getByLabel(`Type your email (${email}) to confirm`).fill(email);
        await page.locator("#delete-current-password").fill("not the password");
        await page.getByRole("button", { name: "Delete my account" }).click();
        await page.locator("#delete-current-password-error").waitFor();
        const [still] = await sql<
          { deleted_at: Date | null }[]
        >`select deleted_at from accounts where email = ${email}`;
        expect(still?.deleted_at).toBeNull();
        await checkPage(page, "en phone delete refused", "en-phone-settings-delete-account-refused");

        await page.locator("#delete-current-password").fill(PASSWORD);
        await page.getByRole("button", { name: "Delete my account" }).click();
        await page.waitForURL(/\/account-deleted$/);
        // Signed out: the header offers to sign in.
        await page.locator("header").getByRole("link", { name: "Sign in" }).waitFor();
        await checkPage(page, "en phone deleted", "en-phone-account-deleted");
        await page.goto("/account");
        await page.waitForURL(/\/sign-in/);
        const [gone] = await sql<{ email: string; deleted_at: Date | null; password_hash: string | null }[]>`
          select a.email, a.deleted_at, a.password_hash from accounts a join security_events e on e.account_id = a.id
          where e.kind = 'account_deleted' and a.email like 'deleted-%' order by a.deleted_at desc limit 1`;
        expect(gone).toMatchObject({ password_hash: null, deleted_at: expect.any(Date) });
        expect(gone?.email).toMatch(/@deleted\.invalid$/);
        // The last mail to the address it had, with the log's last entry.
        const deleted = await smtp.next(email);
        expect(deleted.subject).toBe("Your Shelf account was deleted");
        expect(deleted.text).toContain("Security log: Account deleted · ");
        // Signing in as it fails like a wrong password; the address can sign up again.
        await signIn(page, email, PASSWORD);
        await page.locator("main").getByRole("alert").waitFor();
        await signUp(page, email, labels);
        await context.close();
      }
    }
  });
});
