import type { AddressInfo } from "node:net";
import { createMailer, type Mailer } from "@shelf/server/mail/mailer";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll } from "vitest";

export type ReceivedMail = { to: string[]; from: string; subject: string; text: string; html: string };

export type TestSmtpServer = {
  /** `smtp://user:password@127.0.0.1:<port>`: what SHELF_SMTP_URL is set to. */
  url: string;
  received: ReceivedMail[];
  /** The next mail to `to` not yet taken (waits for it), in the order they arrived. */
  next: (to: string, timeoutMs?: number) => Promise<ReceivedMail>;
  close: () => Promise<void>;
};

function addresses(mail: ParsedMail): string[] {
  const to = mail.to === undefined ? [] : Array.isArray(mail.to) ? mail.to : [mail.to];
  return to.flatMap((group) => group.value.map((entry) => (entry.address ?? "").toLowerCase()));
}

/**
 * A real SMTP server in the test's process (the `smtp-server` package, plain SMTP on loopback, AUTH PLAIN/LOGIN
 * required): every mail it accepts is parsed (MIME, quoted-printable, both bodies) and kept.
 */
export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: false,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === "shelf" && auth.password === "mail-secret") callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            to: addresses(mail),
            from: mail.from?.text ?? "",
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            html: typeof mail.html === "string" ? mail.html : "",
          });
          for (const wake of waiters.splice(0)) wake();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://shelf:mail-secret@127.0.0.1:${port}`,
    received,
    async next(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = received.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${received.length})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A test file's SMTP server (startTestSmtpServer) and a mailer sending through it, started before its tests and closed
 * after them. Both read what beforeAll started when a test uses them, so a file can name them at its top level.
 */
export function withMailer(): { smtp: TestSmtpServer; mailer: Mailer } {
  let server: TestSmtpServer | undefined;
  let sender: Mailer | undefined;
  beforeAll(async () => {
    server = await startTestSmtpServer();
    sender = createMailer({ smtpUrl: server.url, outboxDir: "/nonexistent", from: "Shelf <no-reply@shelf.test>" });
  });
  afterAll(async () => {
    sender?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the SMTP server and mailer start in beforeAll: use them in a test");
    return value;
  };
  return {
    smtp: {
      get url() {
        return started(server).url;
      },
      get received() {
        return started(server).received;
      },
      next: (to, timeoutMs) => started(server).next(to, timeoutMs),
      close: () => started(server).close(),
    },
    mailer: {
      send: (mail) => started(sender).send(mail),
      get destination() {
        return started(sender).destination;
      },
      close: () => started(sender).close(),
    },
  };
}

/** A mail as written to the outbox (a `.eml` file's text), parsed like the ones the SMTP server receives. */
export async function parseMail(raw: string): Promise<ReceivedMail> {
  const mail = await simpleParser(raw);
  return {
    to: addresses(mail),
    from: mail.from?.text ?? "",
    subject: mail.subject ?? "",
    text: mail.text ?? "",
    html: typeof mail.html === "string" ? mail.html : "",
  };
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}[^\\s<>"]*`).exec(mail.text);
  if (!match) throw new Error(`no link starting with ${prefix} in:\n${mail.text}`);
  return match[0];
}
