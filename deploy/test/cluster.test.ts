import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createArtifactStore, designTokens, loadSigningKeyring, publishing, readApiEnv } from "@shelf/api";
import { recordSecret } from "@shelf/api/testing";
import { launchChromium } from "@shelf/api/testing/apps";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRAIN_SECONDS, type Instance } from "../cluster";
import {
  asProxied,
  attempt,
  consent,
  entitledKey,
  MCP_HEADERS,
  mcpCall,
  type Outcome,
  PROTOCOL,
  personWithPassword,
  servedSince,
  signIn,
  sleep,
  startTestCluster,
  type TestCluster,
  waitUntil,
} from "./cluster-helpers";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const journal = JSON.parse(readFileSync(path.join(root, "packages/db/drizzle/meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ web: 3, design: 2 });
});

afterAll(async () => {
  await cluster?.drop();
});

const web = () => cluster.instances.filter((instance) => instance.app === "web");
/** Requests to one instance as the proxy forwards them (with its Host). */
const proxied = () => asProxied(cluster.webUrl);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("a cluster of 3 web and 2 design instances behind HAProxy", () => {
  it("applies the migrations once when every instance starts at the same moment on an empty database", async () => {
    const rows = await cluster.db.sql<{ hash: string }[]>`select hash from drizzle.__drizzle_migrations`;
    expect(rows).toHaveLength(journal.entries.length);
    expect(new Set(rows.map((row) => row.hash)).size).toBe(rows.length);
    for (const instance of cluster.instances) {
      const ready = await fetch(`${instance.url}/readyz`);
      expect(ready.status, instance.name).toBe(200);
    }
  });

  it("holds the 60-a-minute limit exactly across the instances (Redis)", async () => {
    const { key } = await entitledKey(cluster.db.db);
    const before = await cluster.serverResponses();
    const outcomes = await Promise.all(
      Array.from({ length: 90 }, () => attempt(`${cluster.webUrl}/api/library`, { headers: bearer(key) }, "library")),
    );
    const statuses = outcomes.map((outcome) => outcome.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
    expect(await servedSince(cluster, before)).toEqual(["web-1", "web-2", "web-3"]);
  });

  it("keeps a page session signed in on one instance for the others", async () => {
    const [first, second, third] = web() as [Instance, Instance, Instance];
    const person = await personWithPassword(cluster.db.db);
    const cookie = await signIn(first.url, person);
    for (const instance of [second, third]) {
      const page = await fetch(`${instance.url}/account`, { headers: { cookie }, redirect: "manual" });
      expect(page.status, instance.name).toBe(200);
      expect(await page.text()).toContain(person.name);
    }
    const signedOut = await fetch(`${second.url}/account`, { redirect: "manual" });
    expect(signedOut.status).toBe(307);
  });

  it("signs a device in across three instances: code on one, approval on another, key polled from a third", async () => {
    const [first, second, third] = web() as [Instance, Instance, Instance];
    const person = await personWithPassword(cluster.db.db);
    const started = await fetch(`${first.url}/api/device-sign-in/code`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: "shelf-cli", device_name: "cluster-host" }),
    });
    expect(started.status).toBe(200);
    const code = (await started.json()) as { device_code: string; user_code: string; interval: number };
    const poll = () =>
      fetch(`${third.url}/api/device-sign-in/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grant_type: "urn:ietf:params:oauth:grant-type:device_code",
          device_code: code.device_code,
          client_id: "shelf-cli",
        }),
      });
    const pending = await poll();
    expect(pending.status).toBe(400);
    expect(await pending.json()).toMatchObject({ error: "authorization_pending" });

    // The person approves in a browser signed in on the second instance.
    const cookie = await signIn(second.url, person);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      await context.addCookies(
        cookie.split("; ").map((pair) => {
          const [name, ...value] = pair.split("=");
          return { name: name as string, value: value.join("="), url: second.url };
        }),
      );
      const page = await context.newPage();
      await page.goto(`${second.url}/device?user_code=${code.user_code}`);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByRole("heading", { name: "Device connected" }).waitFor();
    } finally {
      await browser.close();
    }

    // Polled as RFC 8628 clients do: every `interval` seconds, five more after a slow_down.
    let interval = code.interval;
    let answered = await poll();
    for (let attempt = 0; answered.status !== 200 && attempt < 10; attempt++) {
      const { error } = (await answered.json()) as { error: string };
      expect(["authorization_pending", "slow_down"]).toContain(error);
      if (error === "slow_down") interval += 5;
      await sleep(interval * 1000 + 100);
      answered = await poll();
    }
    expect(answered.status).toBe(200);
    const token = (await answered.json()) as { access_token: string; account: { email: string } };
    recordSecret(token.access_token);
    expect(token.account.email).toBe(person.email);
    const library = await fetch(`${cluster.webUrl}/api/library`, { headers: bearer(token.access_token) });
    expect(library.status).toBe(200);
  });

  it("serves an MCP session initialized on one instance on the others", async () => {
    const [first, second, third] = web() as [Instance, Instance, Instance];
    const { key } = await entitledKey(cluster.db.db);
    const headers = { ...bearer(key), ...MCP_HEADERS };
    const initialized = await mcpCall(proxied(), first.url, headers, {
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "cluster-test", version: "1.0.0" } },
    });
    expect(initialized.response.status).toBe(200);
    const session = initialized.response.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    const inSession = { ...headers, "mcp-session-id": session as string, "mcp-protocol-version": PROTOCOL };
    const listed = await mcpCall(proxied(), second.url, inSession, { method: "tools/list", params: {} });
    expect(listed.response.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain("library_get");
    const called = await mcpCall(proxied(), third.url, inSession, {
      method: "tools/call",
      params: { name: "library_get", arguments: {} },
    });
    expect(called.response.status).toBe(200);
    expect(called.body).toMatchObject({ result: { content: [{ type: "text" }] } });
    expect(called.body).not.toHaveProperty("result.isError", true);
    const unknown = await mcpCall(
      proxied(),
      second.url,
      { ...inSession, "mcp-session-id": "no-such-session" },
      {
        method: "tools/list",
        params: {},
      },
    );
    expect(unknown.response.status).toBe(404);
  });

  it("runs the OAuth flow with registration, consent and token on three instances", async () => {
    const [first, second, third] = web() as [Instance, Instance, Instance];
    const person = await personWithPassword(cluster.db.db);
    const cookie = await signIn(third.url, person, proxied());
    const redirectUri = "http://127.0.0.1:33418/callback";
    const registered = await proxied()(`${first.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Cluster test client",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString("base64url");
    const authorization = new URL(`${second.url}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "products.read mcp.read",
      state: "cluster-state",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource: `${cluster.webUrl}/api/mcp`,
    })) {
      authorization.searchParams.set(name, value);
    }
    const back = await consent(second.url, authorization, cookie, proxied(), cluster.webUrl);
    expect(back.searchParams.get("state")).toBe("cluster-state");
    const code = back.searchParams.get("code") as string;
    expect(code).toBeTruthy();
    const token = await proxied()(`${third.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${cluster.webUrl}/api/mcp`,
      }),
    });
    expect(token.status, await token.clone().text()).toBe(200);
    const tokens = (await token.json()) as { access_token: string; refresh_token: string };
    recordSecret(tokens.access_token);
    recordSecret(tokens.refresh_token);
    const initialized = await mcpCall(
      proxied(),
      first.url,
      { ...bearer(tokens.access_token), ...MCP_HEADERS },
      {
        method: "initialize",
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "cluster-test", version: "1.0.0" } },
      },
    );
    expect(initialized.response.status).toBe(200);
  });

  it("holds a collect run's lock on every design instance", async () => {
    const [first, second] = cluster.instances.filter((instance) => instance.app === "design") as [Instance, Instance];
    const { token } = await designTokens.createDesignToken(
      cluster.db.db,
      { name: "cluster collector", roles: ["collect"] },
      "shelf",
    );
    recordSecret(token);
    const open = (instance: Instance) =>
      fetch(`${instance.url}/api/agent/collect/runs`, {
        method: "POST",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify({ viewports: ["desktop"], langs: ["en"] }),
      });
    const opened = await open(first);
    expect(opened.status, await opened.clone().text()).toBe(201);
    const run = (await opened.json()) as { id?: number; run?: { id: number } };
    const runId = run.run?.id ?? run.id;
    expect((await open(second)).status).toBe(409);
    expect((await open(first)).status).toBe(409);
    const status = await fetch(`${second.url}/api/agent/collect/runs/${runId}`, { headers: bearer(token) });
    expect(status.status).toBe(200);
  });

  it("downloads a release from the shared S3 bucket through links any instance makes", async () => {
    const [first, second] = web() as [Instance, Instance];
    const { key, productId } = await entitledKey(cluster.db.db);
    // Published as the operator CLI does: into the bucket, signed with the cluster's signing keys.
    const settings = readApiEnv(cluster.settings as NodeJS.ProcessEnv);
    const store = createArtifactStore(settings, cluster.dataDir);
    const keyring = await loadSigningKeyring(cluster.settings.SHELF_SIGNING_KEYS_FILE as string);
    const bytes = randomBytes(300_000);
    const release = await publishing.publishRelease(
      cluster.db.db,
      { store, keyring },
      { productId, version: "1.0.0", filename: "cluster-app.zip" },
      [bytes],
    );
    for (const instance of [first, second]) {
      const link = await proxied()(`${instance.url}/distribution/v1/releases/${release.id}/download`, {
        headers: bearer(key),
      });
      expect(link.status, instance.name).toBe(302);
      const location = link.headers.get("location") as string;
      expect(location.startsWith(cluster.settings.SHELF_S3_ENDPOINT as string)).toBe(true);
      const download = await fetch(location);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    }
  });

  it("routes around an instance killed with SIGKILL under writes: no acknowledged write is lost", async () => {
    const workers = 8;
    const keys = await Promise.all(Array.from({ length: workers }, () => entitledKey(cluster.db.db)));
    const victim = web()[1] as (typeof cluster.instances)[number];
    const outcomes: Outcome[] = [];
    const acknowledged: { keyId: number; version: string }[] = [];
    let killedAt = 0;
    let stopLoad = false;
    const load = keys.map(async ({ key, keyId, productId }, worker) => {
      // At most 50 writes per key: the 60-a-minute limit never answers.
      for (let n = 0; n < 50 && !stopLoad; n++) {
        const version = `${worker}.${n}.0`;
        const outcome = await attempt(
          `${cluster.webUrl}/api/device/installs`,
          {
            method: "POST",
            headers: { ...bearer(key), "content-type": "application/json" },
            body: JSON.stringify({ product_id: productId, version }),
          },
          version,
        );
        outcomes.push(outcome);
        if (outcome.status === 201) acknowledged.push({ keyId, version });
        await sleep(100);
      }
    });
    await sleep(1500);
    killedAt = Date.now();
    await victim.signal("SIGKILL");
    const downAfter = await waitUntil(
      "HAProxy marks the killed instance down",
      async () => (await cluster.serverStates()).get(`web/${victim.name}`) === 0,
      10_000,
    );
    await sleep(2000);
    stopLoad = true;
    await Promise.all(load);

    const failures = outcomes.filter((outcome) => outcome.status !== 201);
    // Only requests in flight at the kill fail (one per worker at most), and none once the checks have seen it.
    expect(failures.length).toBeLessThanOrEqual(workers);
    for (const failure of failures) expect(failure.at).toBeLessThan(killedAt + downAfter + 1000);
    expect(downAfter).toBeLessThan(3000);
    expect(outcomes.filter((outcome) => outcome.at > killedAt + downAfter).length).toBeGreaterThan(0);

    const stored = await cluster.db.sql<{ api_key_id: number; version: string }[]>`
      select api_key_id, version from device_installs where api_key_id = any(${keys.map((key) => key.keyId)})`;
    const storedSet = new Set(stored.map((row) => `${row.api_key_id}/${row.version}`));
    const missing = acknowledged.filter((write) => !storedSet.has(`${write.keyId}/${write.version}`));
    expect(acknowledged.length).toBeGreaterThan(40);
    expect(missing).toEqual([]);

    await victim.start();
    await waitUntil(
      "HAProxy brings the restarted instance back",
      async () => (await cluster.serverStates()).get(`web/${victim.name}`) === 2,
      10_000,
    );
  });

  it("restarts every web instance in turn under load without one failed request", async () => {
    const workers = 12;
    const keys = await Promise.all(Array.from({ length: workers }, () => entitledKey(cluster.db.db)));
    const outcomes: Outcome[] = [];
    let stopLoad = false;
    const load = keys.map(async ({ key, productId }, worker) => {
      // One request a second per key (under the 60-a-minute limit), reads and writes alternating.
      for (let n = 0; !stopLoad && n < 58; n++) {
        const started = Date.now();
        outcomes.push(
          n % 2 === 0
            ? await attempt(`${cluster.webUrl}/api/library`, { headers: bearer(key) }, "GET /api/library")
            : await attempt(
                `${cluster.webUrl}/api/device/installs`,
                {
                  method: "POST",
                  headers: { ...bearer(key), "content-type": "application/json" },
                  body: JSON.stringify({ product_id: productId, version: `${worker}.${n}.1` }),
                },
                "POST /api/device/installs",
              ),
        );
        await sleep(Math.max(0, 1200 - (Date.now() - started)));
      }
    });

    for (const instance of web()) {
      const stopped = instance.signal("SIGTERM");
      // Draining: once the signal is handled, /readyz says 503 while the listener still answers.
      let draining: unknown;
      await waitUntil(
        `${instance.name} answers unready`,
        async () => {
          const readiness = await fetch(`${instance.url}/readyz`);
          draining = await readiness.json();
          return readiness.status === 503;
        },
        1000,
      );
      expect(draining).toMatchObject({ status: "not_ready", checks: { shutdown: "draining" } });
      await waitUntil(
        `HAProxy marks ${instance.name} down while it drains`,
        async () => (await cluster.serverStates()).get(`web/${instance.name}`) === 0,
        DRAIN_SECONDS * 1000,
      );
      expect(instance.running()).toBe(true);
      expect(await stopped).toBe(0);
      await instance.start();
      await waitUntil(
        `HAProxy brings ${instance.name} back`,
        async () => (await cluster.serverStates()).get(`web/${instance.name}`) === 2,
        10_000,
      );
    }
    stopLoad = true;
    await Promise.all(load);
    expect(outcomes.length).toBeGreaterThan(100);
    const failed = outcomes.filter((outcome) => outcome.status !== 200 && outcome.status !== 201);
    expect(failed).toEqual([]);
  });

  it("counts a client by the proxy's X-Forwarded-For entry, not by what the client claims in it", async () => {
    // Without a credential, limits count per client address. HAProxy appends the address it sees (the loopback here)
    // to whatever X-Forwarded-For the client sent, and the instances read that last entry: two claimed addresses
    // share one count of 60 rather than getting 60 each.
    const claims = ["203.0.113.7", "198.51.100.9"];
    const outcomes = await Promise.all(
      Array.from({ length: 140 }, (_, index) =>
        attempt(
          `${cluster.webUrl}/api/client-config`,
          { headers: { "x-forwarded-for": claims[index % 2] as string } },
          "client-config",
        ),
      ),
    );
    const unauthorized = outcomes.filter((outcome) => outcome.status === 401).length;
    expect(unauthorized).toBeLessThanOrEqual(60);
    expect(outcomes.filter((outcome) => outcome.status === 429).length).toBe(140 - unauthorized);
  });
});
