import http from "node:http";
import { pathToFileURL } from "node:url";
import postgres from "postgres";
import { createBaseline, type Day } from "./baseline-core";

/**
 * The bare limit of this machine for GET /api/library and the licensing scenarios, written apart from the project:
 * none of its code, only node:http, postgres.js, node:crypto and SQL. A key lookup by hash, then one statement in which PostgreSQL writes the whole
 * answer as compact JSON in the contract's field order (measured here, 50 products: 15 to 25 % more requests per
 * second than fetching lean rows and building the same JSON in Node, which cost 2.2 to 2.5 ms of Node CPU per
 * request against 0.7 ms here, for 1.5 ms more PostgreSQL CPU). No rate limit, no validation, no headers
 * beyond type and length: what the API costs beyond this is the project's own.
 */
/** The baseline's HTTP server on a pool (not listening yet): `bench/edge-paired.ts` also runs it in its own process. */
export function createBaselineServer(sql: postgres.Sql, baseUrl: string): http.Server {
  const { keyOf, library, licenseCheck, usage, clientConfig } = createBaseline(sql, baseUrl);
  return http.createServer(async (req, res) => {
    try {
      const route = `${req.method} ${req.url}`;
      if (!(route in abilities)) return send(res, 404, '{"message":"Not found.","error":"not_found"}');
      const key = await keyOf(req.headers.authorization);
      if (!key) return send(res, 401, '{"message":"no","error":"invalid_api_key"}');
      const ability = abilities[route];
      if (ability && !(key.abilities as string[]).includes(ability)) return send(res, 403, '{"error":"forbidden"}');
      if (route === "GET /api/library") {
        return send(res, 200, await library(key));
      }
      const answer =
        route === "POST /api/license/check"
          ? await licenseCheck(key, (await readBody(req)) as Record<string, string>)
          : route === "POST /api/device/usage"
            ? await usage(key, (await readBody(req)) as { days?: Day[] })
            : await clientConfig(key);
      send(res, answer.status, JSON.stringify(answer.body));
    } catch (error) {
      console.error(error);
      send(res, 500, '{"error":"internal_error"}');
    }
  });
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
}

function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** The ability each route needs, as the API's routes declare it. */
const abilities: Record<string, string | null> = {
  "GET /api/library": "products.read",
  "POST /api/license/check": "device.entitlements",
  "POST /api/device/usage": "device.usage",
  "GET /api/client-config": null,
};

if (import.meta.url === pathToFileURL(process.argv[1] as string).href) {
  const sql = postgres(process.env.DATABASE_URL as string, { max: 10, onnotice: () => {} });
  const server = createBaselineServer(sql, (process.env.SHELF_BASE_URL as string).replace(/\/+$/, ""));
  server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
    const address = server.address();
    console.log(`baseline listening on ${typeof address === "object" && address ? address.port : "?"}`);
  });
}
