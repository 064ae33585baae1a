import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { accountAbilities } from "@shelf/api";
import { createAccountWithKey, createKey, createProduct, grantEntitlement } from "@shelf/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorOutput, LibraryOutput, LicenseCheckOutput } from "../src/output";
import { makeHome, rawAnswer, type ShelfServer, shelf, shelfEnv, startProxy, startServer } from "./harness";

let server: ShelfServer;
/** What the client calls the service: a proxy in front of it that can stop answering, or answer as a gateway would. */
let front: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  server = await startServer();
  front = await startProxy(Number(new URL(server.baseUrl).port));
});
afterAll(async () => {
  await front?.close();
  await server?.close();
});

const deviceAbilities = ["products.read", "device.entitlements", "device.install", "device.usage"] as const;

/** A device key's user with two products, the first checked online once (so a certificate is kept here). */
async function checkedOnce() {
  front.settings.answer = null;
  const { account } = await createAccountWithKey(server.db, { abilities: [...accountAbilities] });
  const { key } = await createKey(server.db, account.id, {
    kind: "device",
    client: "shelf-cli",
    abilities: [...deviceAbilities],
  });
  const [checked, never] = [await createProduct(server.db), await createProduct(server.db)];
  await grantEntitlement(server.db, account.id, checked.id);
  await grantEntitlement(server.db, account.id, never.id);
  const home = await makeHome();
  // Two seconds a request: a service that never answers is given up on within seconds, not after five minutes.
  const env = shelfEnv(home, { SHELF_BASE_URL: front.url, SHELF_API_KEY: key, SHELF_TIMEOUT: "2" });
  const online = await shelf(["license", "check", String(checked.id), "--json"], env);
  expect(online.code, online.stderr).toBe(0);
  expect(LicenseCheckOutput.parse(JSON.parse(online.stdout)).source).toBe("online");
  const cache = createHash("sha256").update(front.url).digest("hex").slice(0, 16);
  const licenses = path.join(home, ".cache", "shelf", "services", cache, "licenses.json");
  return { env, checked, never, licenses };
}

const errorOf = (run: { stdout: string }) => ErrorOutput.parse(JSON.parse(run.stdout)).error;

describe("a service that cannot be reached", () => {
  it("gives up on a service that accepts and never answers after --timeout: exit 3, and the license from its certificate", async () => {
    const { env, checked } = await checkedOnce();
    front.settings.answer = () => "hang";
    const offline = await shelf(["license", "check", String(checked.id), "--json"], env);
    expect(offline.code, offline.stderr).toBe(0);
    expect(LicenseCheckOutput.parse(JSON.parse(offline.stdout)).source).toBe("offline");
    expect(offline.stdout).toContain('"licensed": true');

    const library = await shelf(["library", "--json"], env);
    expect(library.code).toBe(3);
    expect(errorOf(library)).toMatchObject({ code: "timeout", exit_code: 3 });
    expect(library.stderr).toContain(`The service at ${front.url} did not answer within 2 s.`);
    // The flag wins over the environment.
    const flagged = await shelf(["library", "--timeout", "1"], env);
    expect(flagged.stderr).toContain("did not answer within 1 s.");
    const bad = await shelf(["library", "--timeout", "soon", "--json"], env);
    expect(bad.code).toBe(2);
    expect(errorOf(bad).code).toBe("usage");
  });

  it("counts 502, 503 and 504 as a service that cannot be reached (exit 3), and answers a license from its certificate", async () => {
    const { env, checked } = await checkedOnce();
    for (const status of ["502 Bad Gateway", "503 Service Unavailable", "504 Gateway Timeout"]) {
      front.settings.answer = () => rawAnswer(status, { "content-type": "text/html" }, Buffer.from("<h1>down</h1>"));
      const library = await shelf(["library", "--json"], env);
      expect(library.code, status).toBe(3);
      expect(errorOf(library)).toMatchObject({ code: "unreachable", exit_code: 3 });
      expect(library.stderr).toContain(`cannot be reached: it answered ${status}.`);
      const license = await shelf(["license", "check", String(checked.id), "--json"], env);
      expect(license.code, `${status}: ${license.stderr}`).toBe(0);
      expect(LicenseCheckOutput.parse(JSON.parse(license.stdout)).source).toBe("offline");
    }
    // And once the service is back, the same commands work again.
    front.settings.answer = null;
    const back = await shelf(["library", "--json"], env);
    expect(back.code, back.stderr).toBe(0);
    expect(LibraryOutput.parse(JSON.parse(back.stdout)).items).toHaveLength(2);
  });

  it("says in words that the connection was cut, with the system's code", async () => {
    const { env } = await checkedOnce();
    front.settings.answer = () => "drop";
    const library = await shelf(["library", "--json"], env);
    expect(library.code).toBe(3);
    expect(errorOf(library)).toMatchObject({
      code: "unreachable",
      message: expect.stringContaining("(the connection was cut before an answer came, UND_ERR_SOCKET)"),
    });
    expect(library.stderr).toContain("retrying in");
  });

  it("says the service cannot be reached (exit 3) for a product never checked here, not that no product matches", async () => {
    const { env, never } = await checkedOnce();
    front.settings.answer = () => "drop";
    const result = await shelf(["license", "check", never.name, "--json"], env);
    expect(result.code).toBe(3);
    expect(errorOf(result).code).toBe("unreachable");
    expect(result.stderr).toContain(`no product matching "${never.name}" was checked on this machine before`);
    expect(result.stderr).not.toContain("No product matches");
  });

  it("refuses a forged certificate offline as not the service's (exit 8), not as expired, and drops it", async () => {
    const { env, checked, licenses } = await checkedOnce();
    const kept = JSON.parse(await fs.readFile(licenses, "utf8"));
    const entry = kept[String(checked.id)];
    // Ten more years in the claims, the service's signature left as it was: a forgery.
    const [header, payload, signature] = (entry.certificate as string).split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    claims.exp += 10 * 365 * 24 * 3600;
    entry.certificate = [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
    await fs.writeFile(licenses, JSON.stringify(kept));
    front.settings.answer = () => "drop";
    const result = await shelf(["license", "check", String(checked.id), "--json"], env);
    expect(result.code).toBe(8);
    expect(errorOf(result).code).toBe("certificate_invalid");
    expect(result.stderr).toContain("is not signed by the service's keys");
    expect(result.stderr).not.toContain("expired");
    expect(JSON.parse(await fs.readFile(licenses, "utf8"))[String(checked.id)]).toBeUndefined();
  });
});
