import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

// Resolved at run time from the app's folder (the server's working directory), out of the bundler's sight.
const resolve = createRequire(path.join(process.cwd(), "package.json")).resolve;
let bundle: Promise<{ body: Buffer; etag: string }> | undefined;

/** Scalar's standalone bundle, read from node_modules once and served with a validator for browsers' caches. */
function load() {
  bundle ??= readFile(path.join(path.dirname(resolve("@scalar/api-reference")), "browser/standalone.js")).then(
    (body) => ({
      body,
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
    }),
  );
  return bundle;
}

export async function GET(request: Request): Promise<Response> {
  const { body, etag } = await load();
  const headers = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=3600",
    etag,
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(body), { headers });
}
