import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createMailer } from "@shelf/server/mail/mailer";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIn, startTestSmtpServer, type TestSmtpServer } from "../testing/smtp";
import { passwordResetMail } from "./messages";

let smtp: TestSmtpServer;
let outbox: string;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  outbox = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "shelf-mail-")), "outbox");
});
afterAll(async () => {
  await smtp?.close();
  await fs.rm(path.dirname(outbox), { recursive: true, force: true });
});

const link = "http://shelf.test/reset-password/abc_DEF-123";

describe("the mailer", () => {
  it("sends through the SMTP server of SHELF_SMTP_URL (authenticated), in both languages, as text and HTML", async () => {
    const mailer = createMailer({ smtpUrl: smtp.url, outboxDir: outbox, from: "Shelf <no-reply@shelf.test>" });
    expect(mailer.destination).not.toContain("mail-secret");
    await mailer.send(
      passwordResetMail({ to: "ada@example.test", name: "Ada <b>", language: "en", link, minutes: 30 }),
    );
    await mailer.send(passwordResetMail({ to: "min@example.test", name: "민지", language: "ko", link, minutes: 30 }));
    const en = await smtp.next("ada@example.test");
    expect(en.subject).toBe("Reset your Shelf password");
    expect(en.from).toContain("no-reply@shelf.test");
    expect(en.text).toContain("Hello Ada <b>,");
    expect(en.text).toContain("30 minutes");
    expect(linkIn(en, "http://shelf.test/reset-password/")).toBe(link);
    // The name is text in the HTML body, never markup; the link is there too.
    expect(en.html).toContain("Ada &lt;b&gt;");
    expect(en.html).toContain(`href="${link}"`);
    const ko = await smtp.next("min@example.test");
    expect(ko.subject).toBe("Shelf 비밀번호 재설정");
    expect(ko.text).toContain("민지님");
    expect(ko.text).toContain("30분");
    expect(ko.html).toContain('lang="ko"');
    expect(linkIn(ko, "http://shelf.test/reset-password/")).toBe(link);
    await expect(fs.readdir(outbox)).rejects.toThrow();
    mailer.close();
  });

  it("fails the send when the SMTP server refuses the credentials", async () => {
    const wrong = smtp.url.replace("mail-secret", "wrong-secret");
    const mailer = createMailer({ smtpUrl: wrong, outboxDir: outbox, from: "Shelf <no-reply@shelf.test>" });
    const before = smtp.received.length;
    await expect(
      mailer.send(passwordResetMail({ to: "x@example.test", name: null, language: "en", link, minutes: 30 })),
    ).rejects.toThrow(/auth|535|Invalid/i);
    expect(smtp.received.length).toBe(before);
    mailer.close();
  });

  it("without SHELF_SMTP_URL writes each mail whole to the outbox folder as a .eml file", async () => {
    const mailer = createMailer({ outboxDir: outbox, from: "Shelf <no-reply@shelf.test>" });
    expect(mailer.destination).toBe(outbox);
    await Promise.all([
      mailer.send(passwordResetMail({ to: "a@example.test", name: null, language: "en", link, minutes: 30 })),
      mailer.send(passwordResetMail({ to: "b@example.test", name: null, language: "ko", link, minutes: 30 })),
    ]);
    const files = (await fs.readdir(outbox)).sort();
    expect(files).toHaveLength(2);
    expect(files.every((file) => file.endsWith(".eml"))).toBe(true);
    const parsed = await Promise.all(
      files.map(async (file) => simpleParser(await fs.readFile(path.join(outbox, file)))),
    );
    const subjects = parsed.map((mail) => mail.subject).sort();
    expect(subjects).toEqual(["Reset your Shelf password", "Shelf 비밀번호 재설정"]);
    for (const mail of parsed) {
      expect(mail.text).toContain(link);
      expect(mail.html).toContain(`href="${link}"`);
    }
    mailer.close();
  });
});
