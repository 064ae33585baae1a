import http from "node:http";
import { createDb } from "@shelf/db";
import { resolveCredential } from "../packages/api/src/auth/caller";
import { getLibrary } from "../packages/api/src/routers/library/service";

/**
 * The limit of this machine for the library: a bare node:http server doing the same work as the API (key lookup
 * by hash, the library's SQL through drizzle and postgres.js, JSON out) and nothing else.
 */
const { db } = createDb(process.env.DATABASE_URL as string, { max: 10 });
const server = http.createServer(async (req, res) => {
  const credential = await resolveCredential(db, req.headers.authorization);
  if (credential.status !== "valid") {
    res.writeHead(401, { "content-type": "application/json" });
    res.end('{"message":"no","error":"invalid_api_key"}');
    return;
  }
  const body = JSON.stringify(await getLibrary(db, credential.caller, "http://localhost"));
  res.writeHead(200, { "content-type": "application/json" });
  res.end(body);
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  console.log(`baseline listening on ${typeof address === "object" && address ? address.port : "?"}`);
});
