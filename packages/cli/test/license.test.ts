import fs from "node:fs/promises";
import path from "node:path";
import { accountAbilities, defaultAbilities, policyAdmin } from "@shelf/api";
import { createAccountWithKey, createKey, createProduct, grantEntitlement } from "@shelf/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorOutput, LicenseCheckOutput } from "../src/output";
import { makeHome, type ShelfServer, shelf, shelfEnv, startServer } from "./harness";

let server: ShelfServer;
/** A server the test stops: the client then works from what it cached. */
let goesAway: ShelfServer;

beforeAll(async () => {
  [server, goesAway] = await Promise.all([startServer(), startServer()]);
});
afterAll(async () => {
  await server?.close();
});

async function deviceUser(on: ShelfServer, entitlement: { accessExpiresAt?: Date } = {}, deviceLimit?: number) {
  const { account } = await createAccountWithKey(on.db, { abilities: [...accountAbilities] });
  const { key } = await createKey(on.db, account.id, {
    kind: "device",
    client: "shelf-cli",
    abilities: [...defaultAbilities.device],
  });
  const product = await createProduct(on.db, deviceLimit ? { deviceLimit } : {});
  await grantEntitlement(on.db, account.id, product.id, entitlement);
  const home = await makeHome();
  return { account, product, home, env: shelfEnv(home, { SHELF_BASE_URL: on.baseUrl, SHELF_API_KEY: key }) };
}

const parse = <T>(schema: { parse: (value: unknown) => T }, run: { stdout: string }) =>
  schema.parse(JSON.parse(run.stdout));

describe("shelf license check", () => {
  it("checks online, answers from the verified certificate until the recheck, offline until it expires, then refuses", async () => {
    const accessEnds = new Date(Date.now() + 25_000);
    const { product, env, home } = await deviceUser(goesAway, { accessExpiresAt: accessEnds });
    const first = await shelf(["license", "check", String(product.id), "--json"], env);
    expect(first.code, first.stderr).toBe(0);
    const online = parse(LicenseCheckOutput, first);
    expect(online).toMatchObject({ source: "online", licensed: true, code: "valid" });
    // The certificate ends with access (JWT seconds).
    expect(Date.parse(online.certificate_expires_at as string)).toBe(Math.floor(accessEnds.getTime() / 1000) * 1000);
    const config = JSON.parse(await fs.readFile(path.join(home, ".config", "shelf", "config.json"), "utf8"));
    expect(online.device_id).toBe(config.device_id);
    const again = parse(LicenseCheckOutput, await shelf(["license", "check", product.name, "--json"], env));
    expect(again).toMatchObject({ source: "cached", device_id: online.device_id });

    await goesAway.close();
    const offline = await shelf(["license", "check", String(product.id), "--json"], env);
    expect(offline.code, offline.stderr).toBe(0);
    expect(parse(LicenseCheckOutput, offline).source).toBe("offline");
    expect(offline.stdout).not.toContain("eyJ");

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, accessEnds.getTime() - Date.now() + 1000)));
    const expired = await shelf(["license", "check", String(product.id), "--json"], env);
    expect(expired.code).toBe(5);
    expect(parse(ErrorOutput, expired).error.code).toBe("certificate_expired");
    expect(expired.stderr).toContain("has expired");
  });

  it("prints the seated devices and the manage URL when every seat is taken (exit 7)", async () => {
    const { product, env } = await deviceUser(server, {}, 1);
    expect((await shelf(["license", "check", String(product.id)], env)).code).toBe(0);
    // A second machine of the same account: another home, so another device id.
    const other = shelfEnv(await makeHome(), {
      SHELF_BASE_URL: server.baseUrl,
      SHELF_API_KEY: env.SHELF_API_KEY as string,
    });
    const refused = await shelf(["license", "check", String(product.id), "--json"], other);
    expect(refused.code).toBe(7);
    const error = parse(ErrorOutput, refused).error;
    expect(error.code).toBe("device_limit_reached");
    expect(refused.stderr).toContain("Every device seat");
    expect(refused.stderr).toContain(String(error.details?.manage_url));
  });

  it("drops a device the signed policy revokes (exit 5)", async () => {
    const { product, env } = await deviceUser(server);
    const first = parse(LicenseCheckOutput, await shelf(["license", "check", String(product.id), "--json"], env));
    await policyAdmin.revokeDevice(server.db, product.id, first.device_id);
    const revoked = await shelf(["license", "check", String(product.id), "--json"], env);
    expect(revoked.code).toBe(5);
    expect(parse(ErrorOutput, revoked).error.code).toBe("device_revoked");
  });

  it("refuses to run below the policy's minimum client version, with the upgrade command (exit 7)", async () => {
    const { product, env } = await deviceUser(server);
    await policyAdmin.setPolicy(server.db, { minClientVersion: "99.0.0" });
    try {
      const refused = await shelf(["license", "check", String(product.id), "--json"], env);
      expect(refused.code).toBe(7);
      expect(parse(ErrorOutput, refused).error).toMatchObject({
        code: "client_too_old",
        details: { min_client_version: "99.0.0" },
      });
      expect(refused.stderr).toContain("npm install -g @shelf/cli@latest");
    } finally {
      await policyAdmin.setPolicy(server.db, { minClientVersion: "0.0.0" });
    }
  });
});
