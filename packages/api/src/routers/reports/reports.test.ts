import { createHash, randomBytes } from "node:crypto";
import { schema } from "@shelf/db";
import { createMailer } from "@shelf/server/mail/mailer";
import { createRateLimiter } from "@shelf/server/rate-limit";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAccountApiEdge } from "../../account-api";
import { createOrder } from "../../commerce/order-admin";
import { deliverOutbox } from "../../mail/outbox";
import {
  accountServicesOf,
  createAccount,
  createAccountWithKey,
  createApiClient,
  createProduct,
  signedInCaller,
  TEST_BASE_URL,
  testLog,
} from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { raceOnLock } from "../../testing/race";
import { startTestSmtpServer } from "../../testing/smtp";
import { withApiSuite } from "../../testing/suite";
import { errorFingerprint, errorGroups } from "./crash-reports";
import { ErrorReportData, MAX_BUNDLE_BYTES, SupportReportData } from "./schemas";

const suite = withApiSuite({ ownDelivery: true });
const { testDb, request } = suite;

let address = 0;
/** A client address of its own, so that each test starts with a fresh per-address limit. */
const nextAddress = () => `198.51.100.${++address}`;

const crash = (overrides: Record<string, unknown> = {}) => ({
  app_bundle_id: "com.example.notes",
  app_version: "2.4.0",
  os_version: "macOS 15.1",
  device_model: "MacBookPro18,3",
  error_type: "crash",
  error_message: "EXC_BAD_ACCESS (SIGSEGV) at 0x000000010a3b4c5d",
  stack_trace:
    "0   Notes  0x0000000100a1 -[Editor layout] + 120\n1   Notes  0x0000000100b2 -[Window resize] + 44\n2   AppKit 0x0000000187c3 -[NSView layout] + 12\n3   AppKit 0x0000000187d4 main + 8",
  context: { window_count: 3, theme: "dark" },
  ...overrides,
});

describe("POST /api/error-reports", () => {
  it("stores a report without a key (201) and groups the same crash from other devices under one fingerprint", async () => {
    const clientAddress = nextAddress();
    const first = await request("/api/error-reports", { method: "POST", body: crash(), clientAddress });
    expect(first.status).toBe(201);
    expect(contractMismatch(ErrorReportData, first.text)).toBeNull();
    // Another address, another build, another device: the same error, the same group.
    const again = await request("/api/error-reports", {
      method: "POST",
      clientAddress: nextAddress(),
      body: crash({
        app_version: "2.4.1",
        error_message: "EXC_BAD_ACCESS (SIGSEGV) at 0x00000001099aa000",
        stack_trace:
          "0   Notes  0x0000000200f1 -[Editor layout] + 128\n1   Notes  0x0000000200e2 -[Window resize] + 52\n2   AppKit 0x0000000197c3 -[NSView layout] + 12",
      }),
    });
    expect(again.body.fingerprint).toBe(first.body.fingerprint);
    const other = await request("/api/error-reports", {
      method: "POST",
      clientAddress: nextAddress(),
      body: crash({ error_type: "exception", error_message: "Index out of range" }),
    });
    expect(other.body.fingerprint).not.toBe(first.body.fingerprint);

    const groups = await errorGroups(testDb.db, { since: new Date(Date.now() - 60_000) });
    const group = groups.find((row) => row.fingerprint === first.body.fingerprint);
    expect(group).toMatchObject({
      reports: 2,
      error_type: "crash",
      apps: ["com.example.notes"],
      versions: ["2.4.0", "2.4.1"],
    });
    const [stored] = await testDb.db
      .select()
      .from(schema.errorReports)
      .where(eq(schema.errorReports.id, first.body.id));
    expect(stored).toMatchObject({ deviceModel: "MacBookPro18,3", context: { window_count: 3, theme: "dark" } });
  });

  it("takes each limit of contract section 8 at its boundary: the maximum in, one more a 422", async () => {
    for (const [field, max] of [
      ["app_bundle_id", 255],
      ["app_version", 50],
      ["os_version", 50],
      ["device_model", 100],
      ["error_message", 10_000],
      ["stack_trace", 50_000],
    ] as const) {
      const clientAddress = nextAddress();
      const at = await request("/api/error-reports", {
        method: "POST",
        clientAddress,
        body: crash({ [field]: "x".repeat(max) }),
      });
      expect(at.status, `${field} ${max}`).toBe(201);
      const over = await request("/api/error-reports", {
        method: "POST",
        clientAddress,
        body: crash({ [field]: "x".repeat(max + 1) }),
      });
      expect(over.status, `${field} ${max + 1}`).toBe(422);
      expect(Object.keys(over.body.errors)).toEqual([field]);
    }
    const clientAddress = nextAddress();
    for (const body of [
      crash({ error_type: "fatal" }),
      crash({ app_bundle_id: undefined }),
      crash({ error_message: "" }),
      crash({ context: "not an object" }),
      crash({ context: { blob: "x".repeat(17 * 1024) } }),
    ]) {
      expect(
        (await request("/api/error-reports", { method: "POST", clientAddress, body })).status,
        JSON.stringify(body).slice(0, 80),
      ).toBe(422);
    }
  });

  it("takes 5 a minute from one address, then 429 with Retry-After, counted across instances through Redis", async () => {
    const namespace = `test-${randomBytes(4).toString("hex")}`;
    const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const instances = [1, 2].map(() => {
      const edge = createAccountApiEdge({
        ...accountServicesOf(suite.delivery),
        db: testDb.db,
        baseUrl: TEST_BASE_URL,
        log: testLog,
        rateLimiter: createRateLimiter({ points: 1_000_000 }),
        routeLimiter: (name, perMinute) =>
          createRateLimiter({ points: perMinute, redisUrl, name: `${namespace}:${name}` }),
      });
      return { request: createApiClient(testDb.db, { edge }), edge };
    });
    try {
      for (const { edge } of instances) expect(await edge.ready()).toBe(true);
      const clientAddress = nextAddress();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          (instances[index % 2] as (typeof instances)[0]).request("/api/error-reports", {
            method: "POST",
            clientAddress,
            body: crash(),
          }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(7);
      for (const answer of refused) {
        expect(answer.body.error).toBe("rate_limited");
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(answer.headers.get("x-ratelimit-limit")).toBe("5");
      }
      // Another address has its own five.
      const elsewhere = await (instances[0] as (typeof instances)[0]).request("/api/error-reports", {
        method: "POST",
        clientAddress: nextAddress(),
        body: crash(),
      });
      expect(elsewhere.status).toBe(201);
    } finally {
      await Promise.all(instances.map(({ edge }) => edge.close()));
    }
  });

  it("fingerprints by type, normalised message and the top three frames only", () => {
    const base = {
      error_type: "exception" as const,
      error_message: "Timeout after 3000 ms",
      stack_trace: "at a (x.js:1:2)\nat b (x.js:3:4)\nat c (y.js:5:6)\nat d (z.js:7:8)",
    };
    expect(errorFingerprint(base)).toBe(errorFingerprint({ ...base, error_message: "Timeout after 5000 ms" }));
    expect(errorFingerprint(base)).toBe(
      errorFingerprint({
        ...base,
        stack_trace: "at a (x.js:10:2)\nat b (x.js:30:4)\nat c (y.js:50:6)\nat other (q.js:1:1)",
      }),
    );
    expect(errorFingerprint(base)).not.toBe(
      errorFingerprint({ ...base, stack_trace: "at a (x.js:1:2)\nat other (x.js:3:4)" }),
    );
    expect(errorFingerprint(base)).not.toBe(errorFingerprint({ ...base, error_type: "crash" }));
  });
});

describe("POST /api/support/reports", () => {
  const reporter = () => createAccountWithKey(testDb.db, { kind: "device", client: "desktop" });
  const report = (overrides: Record<string, unknown> = {}) => ({
    kind: "app_report",
    summary: "Sync stops after sleep",
    detail: "After the Mac wakes, the sync icon spins forever.",
    app_bundle_id: "com.example.notes",
    app_version: "2.4.0",
    macos_version: "15.1",
    device_id: "MAC-1",
    ...overrides,
  });

  it("opens a ticket (201), joins the same problem within 24 hours (200), and opens another after it", async () => {
    const { account, key } = await reporter();
    const first = await request("/api/support/reports", { method: "POST", key, body: report() });
    expect(first.status).toBe(201);
    expect(contractMismatch(SupportReportData, first.text)).toBeNull();
    expect(first.body).toMatchObject({
      deduplicated: false,
      ticket: { report_count: 1, status: "open", kind: "app_report" },
    });

    // The same problem, written a little differently: the same ticket.
    const repeat = await request("/api/support/reports", {
      method: "POST",
      key,
      body: report({ summary: "  sync STOPS after   sleep!! ", detail: "Again today." }),
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ deduplicated: true, ticket: { id: first.body.ticket.id, report_count: 2 } });

    // Another app, kind or summary is another problem.
    for (const body of [
      report({ app_bundle_id: "com.example.other" }),
      report({ kind: "general" }),
      report({ summary: "Sync stops after lunch" }),
    ]) {
      const other = await request("/api/support/reports", { method: "POST", key, body });
      expect(other.status).toBe(201);
    }
    // Past the window: a new ticket.
    await testDb.db
      .update(schema.supportTickets)
      .set({ lastReportedAt: sql`now() - interval '25 hours'` })
      .where(eq(schema.supportTickets.id, first.body.ticket.id));
    const later = await request("/api/support/reports", { method: "POST", key, body: report() });
    expect(later.status).toBe(201);
    expect(later.body.ticket.id).not.toBe(first.body.ticket.id);
    // Another account reporting the same problem has its own ticket.
    const neighbour = await reporter();
    const theirs = await request("/api/support/reports", { method: "POST", key: neighbour.key, body: report() });
    expect(theirs.status).toBe(201);
    expect(await testDb.db.$count(schema.supportTickets, eq(schema.supportTickets.accountId, account.id))).toBe(5);
  });

  it("makes one ticket of 10 parallel repeats: one 201, nine 200", async () => {
    const { account, key } = await reporter();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        request("/api/support/reports", { method: "POST", key, body: report({ detail: `Attempt ${index}` }) }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((answer) => answer.body.ticket.id)).size).toBe(1);
    const [ticket] = await testDb.db
      .select()
      .from(schema.supportTickets)
      .where(eq(schema.supportTickets.accountId, account.id));
    expect(ticket?.reportCount).toBe(10);
    expect(
      await testDb.db.$count(schema.supportReports, eq(schema.supportReports.ticketId, ticket?.id as number)),
    ).toBe(10);
  });

  it("takes a multipart form with a diagnostic bundle, stores it whole, and refuses an oversized or stray file", async () => {
    const { key } = await reporter();
    const bundle = randomBytes(300_000);
    const form = new FormData();
    for (const [name, value] of Object.entries(report({ summary: "Crash on export" })))
      form.append(name, String(value));
    form.append("bundle", new Blob([bundle], { type: "application/zip" }), "diagnostics.zip");
    const sent = await multipart(key, form);
    expect(sent.status).toBe(201);
    expect(contractMismatch(SupportReportData, sent.text)).toBeNull();
    expect(sent.body.report.bundle).toEqual({
      size: bundle.length,
      sha256: createHash("sha256").update(bundle).digest("hex"),
      filename: "diagnostics.zip",
    });
    const [stored] = await testDb.db
      .select()
      .from(schema.supportReports)
      .where(eq(schema.supportReports.id, sent.body.report.id));
    const chunks: Buffer[] = [];
    for await (const chunk of await suite.delivery.store.open(stored?.bundleKey as string)) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(bundle)).toBe(true);

    const tooBig = new FormData();
    for (const [name, value] of Object.entries(report({ summary: "Too big" }))) tooBig.append(name, String(value));
    tooBig.append("bundle", new Blob([Buffer.alloc(MAX_BUNDLE_BYTES + 1)]), "huge.zip");
    const refused = await multipart(key, tooBig);
    expect(refused.status).toBe(413);
    expect(refused.body.error).toBe("payload_too_large");

    const stray = new FormData();
    for (const [name, value] of Object.entries(report({ summary: "Stray" }))) stray.append(name, String(value));
    stray.append("photo", new Blob([Buffer.from("x")]), "x.png");
    const strayAnswer = await multipart(key, stray);
    expect(strayAnswer.status).toBe(422);
    expect(strayAnswer.body.errors.photo).toEqual(["is not a file field"]);

    const missing = new FormData();
    missing.append("kind", "app_report");
    const incomplete = await multipart(key, missing);
    expect(incomplete.status).toBe(422);
    expect(Object.keys(incomplete.body.errors).sort()).toEqual(["detail", "summary"]);

    const garbled = await postRaw(key, "multipart/form-data; boundary=nothing-here", "this is not a form");
    expect(garbled.status).toBe(400);
    expect(garbled.body.error).toBe("malformed_request");
    const xml = await postRaw(key, "text/xml", "<report/>");
    expect(xml.status).toBe(415);
    expect(xml.body.message).toMatch(/multipart\/form-data/);
  });

  it("reads multipart text fields as UTF-8 only: other bytes are 422, as in JSON, whatever charset a part declares", async () => {
    const { key } = await reporter();
    const form = (summary: Buffer, partType = "") =>
      postRaw(
        key,
        "multipart/form-data; boundary=b",
        Buffer.concat([
          Buffer.from('--b\r\nContent-Disposition: form-data; name="kind"\r\n\r\napp_report\r\n'),
          Buffer.from('--b\r\nContent-Disposition: form-data; name="detail"\r\n\r\nSee the summary.\r\n'),
          Buffer.from(`--b\r\nContent-Disposition: form-data; name="summary"\r\n${partType}\r\n`),
          summary,
          Buffer.from("\r\n--b--\r\n"),
        ]),
      );
    const latin1 = Buffer.from("Caf\xe9 crashes", "latin1");
    for (const [summary, partType] of [
      [latin1, ""],
      [latin1, "Content-Type: text/plain; charset=iso-8859-1\r\n"],
      [Buffer.from([0x41, 0xff, 0xfe, 0x42]), ""],
      [Buffer.from([0x41, 0xc3, 0x28]), "Content-Type: text/plain; charset=utf-8\r\n"],
    ] as const) {
      const refused = await form(summary, partType);
      expect(refused.status, `${summary.toString("hex")} ${partType}`).toBe(422);
      expect(refused.body.errors).toEqual({ summary: ["must be text in UTF-8"] });
    }
    const stored = await form(Buffer.from("Café ✓ crashes \ufffd", "utf8"));
    expect(stored.status).toBe(201);
    expect(stored.body.ticket.summary).toBe("Café ✓ crashes \ufffd");
  });
});

/** A multipart request as a browser or fetch would build it. */
async function multipart(key: string, form: FormData) {
  const encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  return postRaw(key, encoded.headers.get("content-type") as string, body);
}

/** A report body sent as it is, under the content type named. */
function postRaw(key: string, contentType: string, rawBody: string | Uint8Array) {
  return request("/api/support/reports", { method: "POST", key, headers: { "content-type": contentType }, rawBody });
}

describe("withdrawing from an order (the billing page)", () => {
  it("files a refund request for the person's own order, and never for another account's", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const stranger = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    const order = await createOrder(testDb.db, { accountId: account.id, productId: product.id });
    const { caller } = await signedInCaller(testDb.db, account.id);
    const theirs = await signedInCaller(testDb.db, stranger.account.id);
    await expect(theirs.caller.reports.withdraw({ order: order.id })).rejects.toMatchObject({
      cause: { code: "order_not_found" },
    });
    const filed = await caller.reports.withdraw({ order: order.id, reason: "Wrong app." });
    expect(filed.ticket).toMatchObject({ kind: "refund_request", summary: `Withdrawal from order ${order.number}` });
    const tickets = await testDb.db
      .select({ accountId: schema.supportTickets.accountId })
      .from(schema.supportTickets)
      .where(eq(schema.supportTickets.id, filed.ticket.id));
    expect(tickets).toEqual([{ accountId: account.id }]);
  });

  it("marks the order once: it shows the request's date, a second request is refused with it, and one mail confirms it", async () => {
    // Without a key: creating one mails a notice of its own.
    const account = await createAccount(testDb.db, { language: "ko" });
    const product = await createProduct(testDb.db, { name: "Prompt Pantry", unitPriceCents: 33_000, currency: "KRW" });
    const order = await createOrder(testDb.db, { accountId: account.id, productId: product.id });
    const { caller } = await signedInCaller(testDb.db, account.id);
    await caller.reports.withdraw({ order: order.id });
    const { order: shown } = await caller.orders.show({ order: order.id });
    expect(shown.can_withdraw).toBe(false);
    expect(shown.withdrawal_requested_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expect(caller.reports.withdraw({ order: order.id, reason: "again" })).rejects.toMatchObject({
      cause: {
        code: "withdrawal_already_requested",
        details: { withdrawal_requested_at: shown.withdrawal_requested_at },
      },
    });
    const smtp = await startTestSmtpServer();
    const mailer = createMailer({ smtpUrl: smtp.url, outboxDir: "/nonexistent", from: "Shelf <no-reply@shelf.test>" });
    try {
      while ((await deliverOutbox(testDb.db, { mailer, baseUrl: TEST_BASE_URL, log: testLog })) > 0) {}
      const mail = await smtp.next(account.email);
      expect(mail.subject).toBe(`주문 ${order.number}의 청약철회 요청을 받았습니다`);
      expect(mail.text).toContain("Prompt Pantry");
      expect(mail.text).toContain("₩33,000");
      expect(mail.text).toContain(`${TEST_BASE_URL}/account/billing`);
      expect(smtp.received.filter((m) => m.to.includes(account.email.toLowerCase()))).toHaveLength(1);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it("refuses the second of two requests sent at once, and files one refund request", async () => {
    const { account } = await createAccountWithKey(testDb.db);
    const product = await createProduct(testDb.db);
    const order = await createOrder(testDb.db, { accountId: account.id, productId: product.id });
    const [first, second] = await Promise.all([
      signedInCaller(testDb.db, account.id),
      signedInCaller(testDb.db, account.id),
    ]);
    const results = await raceOnLock(testDb.db, sql`select id from orders where id = ${order.id} for update`, [
      () => first.caller.reports.withdraw({ order: order.id }),
      () => second.caller.reports.withdraw({ order: order.id, reason: "double click" }),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((result) => result.status === "rejected");
    expect(refused?.status === "rejected" && refused.reason).toMatchObject({
      cause: { code: "withdrawal_already_requested" },
    });
    const reports = await testDb.db.execute<{ n: number }>(
      sql`select count(*)::int as n from support_reports r join support_tickets t on t.id = r.ticket_id
        where t.account_id = ${account.id}`,
    );
    expect(reports[0]?.n).toBe(1);
    const mails = await testDb.db.execute<{ n: number }>(
      sql`select count(*)::int as n from mail_outbox where account_id = ${account.id} and kind = 'withdrawal_requested'`,
    );
    expect(mails[0]?.n).toBe(1);
  });
});
