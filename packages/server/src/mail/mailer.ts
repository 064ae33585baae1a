import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";

/** One mail to one person: both a plain-text and an HTML body, in the account's language. */
export type Mail = { to: string; subject: string; text: string; html: string };

export type Mailer = {
  /** Resolves once the SMTP server accepted the mail, or once it is written to the outbox. */
  send: (mail: Mail) => Promise<void>;
  /** Where mail goes, for the start-up output: the SMTP server (without its password) or the outbox folder. */
  readonly destination: string;
  close: () => void;
};

export type MailerOptions = {
  /** `smtp://` or `smtps://` URL of the server to send through (`SHELF_SMTP_URL`); unset: the outbox folder. */
  smtpUrl?: string;
  /** Where mails are written, one `.eml` file each, when there is no SMTP server (`<data folder>/outbox`). */
  outboxDir: string;
  /** The sender (`SHELF_MAIL_FROM`). */
  from: string;
};

/** The SMTP URL as the start-up output may show it: user and password left out. */
function shownUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

/**
 * Mail through nodemailer: to the SMTP server of `SHELF_SMTP_URL`, or, without one (the embedded default), into the
 * outbox folder as RFC 5322 files (`.eml`, which any mail program opens), written whole or not at all.
 */
export function createMailer(options: MailerOptions): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      destination: shownUrl(options.smtpUrl),
      async send(mail) {
        await transport.sendMail({ from: options.from, ...mail });
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    destination: options.outboxDir,
    async send(mail) {
      const info = await transport.sendMail({ from: options.from, ...mail });
      await fs.mkdir(options.outboxDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`;
      const file = path.join(options.outboxDir, name);
      await fs.writeFile(`${file}.part`, info.message as Buffer, { mode: 0o600 });
      await fs.rename(`${file}.part`, file);
    },
    close: () => transport.close(),
  };
}
