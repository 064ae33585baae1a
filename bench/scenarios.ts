import {
  createAccountApiEdge,
  createDelivery,
  createLogger,
  createRateLimiter,
  loadDeliveryFiles,
  readApiEnv,
} from "@shelf/api";
import { fromFetch } from "@shelf/api/edge";
import { createDb } from "@shelf/db";
import type { BenchData } from "./data";
import { benchServices } from "./edge-setup";
import type { LoadTarget, startProcess } from "./harness";
import { BASE_URL } from "./settings";

export type Result = {
  name: string;
  group: string | undefined;
  baseline: boolean;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statements: number | null;
  /** CPU time per request of the server that answered, and of PostgreSQL (all its processes), in ms. */
  serverCpuMs: number;
  databaseCpuMs: number;
  baselineRatio?: number;
  p99Ratio?: number;
};

/** A request shape under load (`nextBody`: a new body for every request, autocannon's setupRequest), named. */
export type Scenario = LoadTarget & {
  name: string;
  /** Scenarios of one group are compared with the group's baseline scenario. */
  group?: string;
  baseline?: boolean;
  expect: number;
  statements: number | null;
};

/** A license check's body, as the scenarios and the statement count send it. */
export function licenseJson(productId: number, device: string): string {
  return JSON.stringify({ product_id: productId, device_id: device, app_version: "1.1.0" });
}

/** Each scenario twice: against the independent baseline (listed first), then against the app. */
export function pairedScenarios(
  baselinePort: number,
  appPort: number,
  list: (Omit<Scenario, "port" | "baseline"> & {
    /** What the baseline is sent instead (e.g. seats taken on a product of its own). */
    forBaseline?: Pick<Scenario, "body" | "nextBody">;
  })[],
): Scenario[] {
  return list.flatMap(({ forBaseline, ...scenario }) => [
    {
      ...scenario,
      ...forBaseline,
      name: `baseline: ${scenario.name}`,
      baseline: true,
      port: baselinePort,
      statements: null,
    },
    { ...scenario, port: appPort },
  ]);
}

/** Answer fields that differ between any two requests (times, signatures, new rows and the seats they take). */
const VOLATILE = new Set([
  "checked_at",
  "recheck_after",
  "certificate",
  "certificate_expires_at",
  "signed_at",
  "signature",
  "kid",
  "activated_at",
  "last_seen_at",
  "id",
  "device_id",
  "devices_used",
]);

function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, VOLATILE.has(name) ? typeof item : masked(item)]),
    );
  }
  return value;
}

/**
 * The baselines of the licensing scenarios must answer what the app answers (the same fields, in the same order, with
 * the same values but for times and signatures), or their ratios mean nothing: checked before anything is measured,
 * with the app's request sent to both.
 */
export async function assertSameAnswers(scenarios: Scenario[]) {
  for (const base of scenarios.filter((scenario) => scenario.baseline && scenario.group !== "library")) {
    const app = scenarios.find((scenario) => !scenario.baseline && scenario.group === base.group) as Scenario;
    const answers = await Promise.all(
      [base, app].map(async (scenario) => {
        const response = await fetch(`http://127.0.0.1:${scenario.port}${scenario.path}`, {
          method: scenario.method ?? "GET",
          headers: scenario.headers,
          body: app.nextBody?.() ?? app.body,
        });
        return { status: response.status, body: JSON.stringify(masked(await response.json())) };
      }),
    );
    if (answers[0]?.status !== answers[1]?.status || answers[0]?.body !== answers[1]?.body) {
      throw new Error(
        `The baseline of ${app.name} answers differently:\n  API:      ${JSON.stringify(answers[1])}\n  baseline: ${JSON.stringify(answers[0])}`,
      );
    }
    console.log(`  ${app.name}: the baseline answers the same fields and values`);
  }
}

/**
 * The baseline must answer exactly what the API answers, byte for byte, or its ratio means nothing: checked for
 * each library size before anything is measured.
 */
export async function assertSameBytes(appPort: number, baselinePort: number, data: BenchData) {
  for (const [size, key] of Object.entries(data.keys)) {
    const [api, bare] = await Promise.all(
      [appPort, baselinePort].map(async (port) => {
        const response = await fetch(`http://127.0.0.1:${port}/api/library`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return Buffer.from(await response.arrayBuffer());
      }),
    );
    if (!api || !bare || !api.equals(bare)) {
      const at = [...(api ?? [])].findIndex((byte, index) => byte !== bare?.[index]);
      throw new Error(
        `The baseline's library (${size}) differs from the API's at byte ${at}:\n` +
          `  API:      ${api?.subarray(Math.max(0, at - 80), at + 80).toString()}\n` +
          `  baseline: ${bare?.subarray(Math.max(0, at - 80), at + 80).toString()}`,
      );
    }
    console.log(`  library (${size}): ${api.length} bytes, identical in the API and the baseline`);
  }
}

/** SQL statements one request costs, counted in-process through the same handler and a counting driver. */
export async function countStatements(url: string, data: BenchData, dataDir: string) {
  let count = 0;
  const env = readApiEnv({} as NodeJS.ProcessEnv);
  const files = await loadDeliveryFiles(env, dataDir);
  const delivery = await createDelivery({ env, dataDir, baseUrl: BASE_URL, files });
  const handle = createDb(url, { max: 2, onQuery: () => count++ });
  const edge = createAccountApiEdge({
    db: handle.db,
    baseUrl: BASE_URL,
    ...benchServices(delivery, BASE_URL),
    rateLimiter: createRateLimiter({ points: 1e9 }),
    log: createLogger({ SHELF_LOG_LEVEL: "silent", SHELF_LOG_FILE: undefined }),
  });
  const handler = (request: Request) => edge.handle(fromFetch(request));
  const measure = async (pathname: string, key?: string, body?: (run: number) => string) => {
    const send = (run: number) =>
      handler(
        new Request(`http://bench${pathname}`, {
          method: body ? "POST" : "GET",
          headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
          body: body?.(run),
        }),
      );
    // Twice: the second request shows the steady state (the first may record key use).
    await send(0);
    count = 0;
    await send(1);
    return count;
  };
  const days = (n: number) => () =>
    JSON.stringify({
      consent: true,
      days: Array.from({ length: n }, (_, index) => ({
        product_id: data.updateProductId,
        usage_date: new Date(Date.now() - index * 86_400_000).toISOString().slice(0, 10),
        launches: index,
      })),
    });
  const license =
    (device: (run: number) => string, productId = data.updateProductId) =>
    (run: number) =>
      licenseJson(productId, device(run));
  const result = {
    library: await measure("/api/library", data.keys.p50),
    library10: await measure("/api/library", data.keys.p10),
    library1000: await measure("/api/library", data.keys.p1000),
    updates: await measure(`/api/products/${data.updateProductId}/updates?version=1.0.0`, data.keys.p50),
    install: await measure(`/api/products/${data.updateProductId}/install`, data.keys.p50),
    appcast: await measure(`/distribution/v1/products/${data.updateProductId}/appcast.xml`, data.keys.p50),
    unauthenticated: await measure("/api/library"),
    licenseSeated: await measure(
      "/api/license/check",
      data.deviceKey,
      license(() => "count-seated"),
    ),
    licenseNew: await measure(
      "/api/license/check",
      data.deviceKey,
      license((run) => `count-new-${run}`, data.seatProductIds.app),
    ),
    usage30: await measure("/api/device/usage", data.deviceKey, days(30)),
    usage200: await measure("/api/device/usage", data.deviceKey, days(200)),
    clientConfig: await measure("/api/client-config", data.deviceKey),
  };
  await handle.close();
  return result;
}

export type Started = Awaited<ReturnType<typeof startProcess>>;
/** The servers under load: the app, the app with its rate limit in Redis (SHELF_BENCH_REDIS_URL), the baseline. */
export type Servers = { app: Started; appWithRedis: Started | null; baseline: Started };
type Statements = Awaited<ReturnType<typeof countStatements>>;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { "content-type": "application/json" };

/** The ETag of the buyer's appcast, for the 304 scenario. */
export async function appcastEtag(port: number, data: BenchData): Promise<string> {
  const response = await fetch(
    `http://127.0.0.1:${port}/distribution/v1/products/${data.updateProductId}/appcast.xml`,
    {
      headers: { authorization: `Bearer ${data.keys.p50}` },
    },
  );
  await response.arrayBuffer();
  return response.headers.get("etag") as string;
}

/** The reads of a buyer's key: the library (against its baseline), updates, the install plan, the appcast, a 401. */
export async function readScenarios(data: BenchData, { app, appWithRedis, baseline }: Servers, statements: Statements) {
  const library = { path: "/api/library", headers: auth(data.keys.p50), expect: 200 };
  const appcast = `/distribution/v1/products/${data.updateProductId}/appcast.xml`;
  return {
    reads: [
      {
        ...library,
        name: "baseline: independent node:http + postgres.js, same bytes (library, 50 products)",
        group: "library",
        baseline: true,
        port: baseline.port,
        statements: 2,
      },
      {
        ...library,
        name: "GET /api/library (50 products)",
        group: "library",
        port: app.port,
        statements: statements.library,
      },
      ...(appWithRedis
        ? [
            {
              ...library,
              name: "GET /api/library (50 products), rate limit in Redis",
              group: "library",
              port: appWithRedis.port,
              statements: statements.library,
            },
          ]
        : []),
      {
        name: `GET /api/products/{id}/updates`,
        port: app.port,
        path: `/api/products/${data.updateProductId}/updates?version=1.0.0`,
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.updates,
      },
      {
        name: "GET /api/products/{id}/install",
        port: app.port,
        path: `/api/products/${data.updateProductId}/install`,
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.install,
      },
      {
        name: "GET /distribution/v1/products/{id}/appcast.xml (buyer's key, 2 releases)",
        port: app.port,
        path: appcast,
        headers: auth(data.keys.p50),
        expect: 200,
        statements: statements.appcast,
      },
      {
        name: "GET /distribution/v1/products/{id}/appcast.xml, If-None-Match (304)",
        port: app.port,
        path: appcast,
        headers: { ...auth(data.keys.p50), "if-none-match": await appcastEtag(app.port, data) },
        expect: 304,
        statements: statements.appcast,
      },
    ] as Scenario[],
    unauthenticated: {
      name: "GET /api/library without a key (401)",
      port: app.port,
      path: "/api/library",
      expect: 401,
      statements: statements.unauthenticated,
    } as Scenario,
  };
}

/** A device key's requests, each against the baseline first: license checks (seated, new), usage, client-config. */
export function deviceScenarios(data: BenchData, { app, baseline }: Servers, statements: Statements): Scenario[] {
  const licenseBody = (device: string, productId = data.updateProductId) => licenseJson(productId, device);
  const newDevices = (productId: number) => {
    let device = 0;
    return () => licenseBody(`bench-new-${process.hrtime.bigint()}-${device++}`, productId);
  };
  const usageBody = (days: number) =>
    JSON.stringify({
      consent: true,
      days: Array.from({ length: days }, (_, index) => ({
        product_id: data.updateProductId,
        usage_date: new Date(Date.now() - index * 86_400_000).toISOString().slice(0, 10),
        launches: 3 + index,
        commands: { sync: index },
      })),
    });
  const post = { method: "POST" as const, headers: { ...auth(data.deviceKey), ...json }, expect: 200 };
  return pairedScenarios(baseline.port, app.port, [
    {
      ...post,
      name: "POST /api/license/check, a seated device",
      group: "license-seated",
      path: "/api/license/check",
      body: licenseBody("bench-seated-device"),
      statements: statements.licenseSeated,
    },
    {
      ...post,
      name: "POST /api/license/check, a new device each time (takes a seat)",
      group: "license-new",
      path: "/api/license/check",
      // Every request names a device never seen before, on a product of its own (see `seatProductIds`): each
      // server's seats pile up on its own product, so neither counts the seats the other took.
      body: licenseBody("bench-new-first", data.seatProductIds.app),
      nextBody: newDevices(data.seatProductIds.app),
      forBaseline: {
        body: licenseBody("bench-new-first", data.seatProductIds.baseline),
        nextBody: newDevices(data.seatProductIds.baseline),
      },
      statements: statements.licenseNew,
    },
    {
      ...post,
      name: "POST /api/device/usage, 30 days",
      group: "usage-30",
      path: "/api/device/usage",
      body: usageBody(30),
      statements: statements.usage30,
    },
    {
      ...post,
      name: "POST /api/device/usage, 200 days",
      group: "usage-200",
      path: "/api/device/usage",
      body: usageBody(200),
      statements: statements.usage200,
    },
    {
      name: "GET /api/client-config (signed per request)",
      group: "client-config",
      path: "/api/client-config",
      headers: auth(data.deviceKey),
      expect: 200,
      statements: statements.clientConfig,
    },
  ]);
}
