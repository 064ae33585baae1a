import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { createRateLimiter, defaultAbilities } from "@shelf/api";
import { createAccountWithKey, createKey, createProduct, grantEntitlement } from "@shelf/api/testing";
import { schema } from "@shelf/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CrashReportsOutput,
  ErrorOutput,
  ReleasesOutput,
  ReportOutput,
  UsageConsentOutput,
  UsagePushOutput,
  UsageRecordOutput,
} from "../src/output";
import { makeHome, type ShelfServer, shelf, shelfEnv, startServer } from "./harness";

const run = promisify(execFile);
let server: ShelfServer;
/** One request per two seconds per client: the second request of a command meets a 429. */
let strict: ShelfServer;

beforeAll(async () => {
  [server, strict] = await Promise.all([
    startServer(),
    startServer({ rateLimiter: createRateLimiter({ points: 1, windowSeconds: 2, name: "cli-test" }) }),
  ]);
});
afterAll(async () => {
  await server?.close();
  await strict?.close();
});

async function deviceUser(on: ShelfServer) {
  const { account } = await createAccountWithKey(on.db);
  const { key, record } = await createKey(on.db, account.id, {
    kind: "device",
    client: "shelf-cli",
    abilities: [...defaultAbilities.device],
  });
  const product = await createProduct(on.db);
  await grantEntitlement(on.db, account.id, product.id);
  const env = shelfEnv(await makeHome(), { SHELF_BASE_URL: on.baseUrl, SHELF_API_KEY: key });
  return { account, product, env, keyId: record.id };
}

const parse = <T>(schemaOf: { parse: (value: unknown) => T }, output: { stdout: string }) =>
  schemaOf.parse(JSON.parse(output.stdout));

describe("shelf usage", () => {
  it("counts launches only after consent, pushes them, and deletes unsent counts when consent is withdrawn", async () => {
    const { account, product, env } = await deviceUser(server);
    const refused = await shelf(["usage", "push", "--json"], env);
    expect(refused.code).toBe(2);
    expect(parse(ErrorOutput, refused).error.code).toBe("consent_required");
    expect(parse(UsageRecordOutput, await shelf(["usage", "record", String(product.id), "--json"], env)).counted).toBe(
      false,
    );

    expect(parse(UsageConsentOutput, await shelf(["usage", "consent", "on", "--json"], env)).consent).toBe(true);
    for (let launch = 0; launch < 2; launch++) {
      const counted = await shelf(["usage", "record", String(product.id), "--command", "build", "--json"], env);
      expect(parse(UsageRecordOutput, counted).counted).toBe(true);
    }
    expect((await shelf(["license", "check", String(product.id)], env)).code).toBe(0);
    const pushed = parse(UsagePushOutput, await shelf(["usage", "push", "--json"], env));
    expect(pushed).toEqual({ sent_days: 1, stored: 1 });
    const rows = await server.db.select().from(schema.deviceUsage).where(eq(schema.deviceUsage.accountId, account.id));
    expect(rows).toEqual([expect.objectContaining({ productId: product.id, launches: 3 })]);
    // Nothing left to send.
    expect(parse(UsagePushOutput, await shelf(["usage", "push", "--json"], env)).sent_days).toBe(0);

    await shelf(["usage", "record", String(product.id)], env);
    const off = parse(UsageConsentOutput, await shelf(["usage", "consent", "off", "--json"], env));
    expect(off).toEqual({ consent: false, discarded_days: 1 });
    expect((await shelf(["usage", "push"], env)).code).toBe(2);
  });
});

describe("shelf report problem", () => {
  it("opens a support ticket with a diagnostic bundle, joins it when repeated, and asks nothing off a terminal", async () => {
    const { account, env } = await deviceUser(server);
    const args = ["report", "problem", "--summary", "Install hangs", "--detail", "It stops at 50 %.", "--json"];
    const first = await shelf([...args, "--diagnostics"], env);
    expect(first.code, first.stderr).toBe(0);
    const opened = parse(ReportOutput, first);
    expect(opened).toMatchObject({ deduplicated: false, report_count: 1, diagnostics_attached: true });
    const again = parse(ReportOutput, await shelf(args, env));
    expect(again).toMatchObject({ ticket_id: opened.ticket_id, deduplicated: true, report_count: 2 });
    const [ticket] = await server.db
      .select()
      .from(schema.supportTickets)
      .where(eq(schema.supportTickets.id, opened.ticket_id));
    expect(ticket?.accountId).toBe(account.id);
    const reports = await server.db
      .select()
      .from(schema.supportReports)
      .where(eq(schema.supportReports.ticketId, opened.ticket_id));
    expect(reports.map((report) => report.bundleFilename).sort()).toEqual([null, "shelf-diagnostics.json"]);
    const missing = await shelf(["report", "problem", "--summary", "No detail"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--detail is required");
  });
});

describe("crash reports of the client", () => {
  it("sends its own unexpected failure only after opting in, without the key", async () => {
    const { env } = await deviceUser(server);
    const installs = path.join(env.XDG_DATA_HOME as string, "shelf", "installs.json");
    // A folder where shelf keeps a file (made by something else): reading it fails in a way shelf does not expect.
    await fs.mkdir(installs, { recursive: true });
    const marker = (await server.db.select().from(schema.errorReports)).length;
    const quiet = await shelf(["library"], env);
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toContain("shelf failed unexpectedly");
    expect(quiet.stderr).not.toContain("crash report was sent");
    expect(await server.db.select().from(schema.errorReports)).toHaveLength(marker);

    expect(parse(CrashReportsOutput, await shelf(["report", "crashes", "on", "--json"], env))).toEqual({
      crash_reports: true,
    });
    const crashed = await shelf(["library"], env);
    expect(crashed.code).toBe(1);
    expect(crashed.stderr).toContain("A crash report was sent");
    const reports = await server.db
      .select()
      .from(schema.errorReports)
      .where(eq(schema.errorReports.appBundleId, "shelf-cli"));
    expect(reports).toHaveLength(1);
    expect(reports[0]?.errorMessage).toMatch(/^Error: EISDIR/);
    expect(JSON.stringify(reports[0])).not.toContain(env.SHELF_API_KEY as string);
  });
});

describe("rate limits and completion", () => {
  it("waits out a 429 as Retry-After asks and says so", async () => {
    const { product, env } = await deviceUser(strict);
    // `releases` by name asks for the product list, then the releases: the second request is over the limit.
    const result = await shelf(["releases", product.name, "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/rate limiting this client: waiting \d+ s as it asks \(Retry-After\)/);
    expect(parse(ReleasesOutput, result).product.id).toBe(product.id);
  });

  it("prints bash, zsh and fish completion that offers commands and options", async () => {
    const env = shelfEnv(await makeHome());
    const bash = await shelf(["completion", "bash"], env);
    expect(bash.code).toBe(0);
    const script = `${bash.stdout}
COMP_WORDS=(shelf lic); COMP_CWORD=1; _shelf_complete; echo "\${COMPREPLY[*]}"
COMP_WORDS=(shelf install foo --c); COMP_CWORD=3; _shelf_complete; echo "\${COMPREPLY[*]}"`;
    const { stdout } = await run("bash", ["-c", script]);
    expect(stdout.split("\n")).toEqual(["license", "--channel", ""]);
    expect((await shelf(["completion", "zsh"], env)).stdout).toContain("bashcompinit");
    const fish = await shelf(["completion", "fish"], env);
    expect(fish.stdout).toContain("complete -c shelf -n '__fish_seen_subcommand_from install' -l channel");
    expect((await shelf(["completion", "tcsh"], env)).code).toBe(2);
  });
});
