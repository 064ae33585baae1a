import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { readApiEnv } from "@shelf/api";
import { seedDemo } from "@shelf/api/demo";
import type { RestResult } from "@shelf/api/rest";
import { createDb } from "@shelf/db";
import { resolveDatabase } from "@shelf/db/server";
import next from "next";
import { readWebEnv } from "./src/env";
import { getRestHandler, waitForRateLimitStore } from "./src/rest";

/** /api paths that Next's own route handlers serve (none yet: MCP and OAuth land here with their issues). */
const NEXT_API_PREFIXES: string[] = [];

const dir = path.dirname(fileURLToPath(import.meta.url));

async function main() {
  const env = readWebEnv();
  const database = await resolveDatabase({ log: () => {} });
  process.env.DATABASE_URL = database.url;

  let demoKey: string | undefined;
  if (env.SHELF_DEMO) {
    const seeding = createDb(database.url, { max: 2 });
    demoKey = (await seedDemo(seeding.db, { brand: readApiEnv().SHELF_KEY_PREFIX })).key;
    await seeding.close();
  }

  const app = next({ dev: env.NODE_ENV !== "production", dir });
  await app.prepare();
  const handleNext = app.getRequestHandler();
  // The REST handler needs the public base URL, known once the port is (PORT=0 picks a free one).
  let handleRest: ReturnType<typeof getRestHandler> | undefined;

  const server = http.createServer(async (req, res) => {
    const url = req.url ?? "/";
    try {
      if (isRestPath(url) && handleRest) {
        sendResult(res, await handleRest(toRequest(req), { clientAddress: req.socket.remoteAddress }));
      } else {
        await handleNext(req, res);
      }
    } catch (error) {
      console.error("Request failed", error);
      if (!res.headersSent) {
        res.writeHead(500, { "Content-Type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ message: "Internal server error.", error: "internal_error" }));
      } else res.destroy();
    }
  });

  // Turbopack's HMR websocket in development (pages stay non-interactive without it since Next 16.3).
  const handleUpgrade = app.getUpgradeHandler();
  server.on("upgrade", (req, socket, head) => {
    handleUpgrade(req, socket, head).catch(() => socket.destroy());
  });

  await new Promise<void>((resolve) => server.listen(env.PORT, env.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  process.env.SHELF_BASE_URL ??= `http://localhost:${port}`;
  handleRest = getRestHandler();
  if (!(await waitForRateLimitStore()))
    console.warn("Redis did not answer: rate limits are counted per instance until it does.");

  console.log(
    `Database: ${database.embedded ? `embedded PostgreSQL on port ${database.embedded.port}` : "DATABASE_URL"}`,
  );
  if (demoKey) {
    console.log(`Demo API key: ${demoKey}`);
    console.log(`Try: curl -H "Authorization: Bearer ${demoKey}" http://localhost:${port}/api/library`);
  }
  console.log(`Shelf is running at http://localhost:${port}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    await database.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

function isRestPath(url: string): boolean {
  if (!(url === "/api" || url.startsWith("/api/") || url.startsWith("/api?"))) return false;
  return !NEXT_API_PREFIXES.some((prefix) => url.startsWith(prefix));
}

function toRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    // @ts-expect-error Node's fetch needs duplex for streamed request bodies; the DOM types lack it.
    duplex: hasBody ? "half" : undefined,
  });
}

function sendResult(res: http.ServerResponse, result: RestResult): void {
  if (result.body !== null) result.headers["content-length"] = String(Buffer.byteLength(result.body));
  res.writeHead(result.status, result.headers);
  res.end(result.body ?? undefined);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
