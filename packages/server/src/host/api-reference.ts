import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { NONCE_HEADER } from "./headers";

/** Where every app serves its API reference, and the renderer's bundle (the page headers allow its inline styles). */
export const API_REFERENCE_PATH = "/docs/api";
const SCRIPT_PATH = `${API_REFERENCE_PATH}/scalar.js`;

/**
 * An app's API reference: Scalar's renderer (from npm, served by the app: nothing is loaded from another host) over
 * the app's live OpenAPI document, with search, schemas and request examples (curl first, JavaScript among the
 * clients). Scalar's AI agent, telemetry and hosted fonts are off; the page's CSP would refuse them anyway. The mount
 * point is not `#api-reference`: the standalone bundle mounts a second, unconfigured reference on an element of that
 * id. A route handler at `/docs/api` answers with it.
 */
export function apiReferencePage(request: Request, options: { title: string; documentUrl?: string }): Response {
  const nonce = request.headers.get(NONCE_HEADER) ?? "";
  const documentUrl = options.documentUrl ?? "/api/openapi.json";
  const configuration = {
    url: documentUrl,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: "never",
    documentDownloadType: "json",
    defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
    metaData: { title: options.title },
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="/icon.svg">
</head>
<body>
<noscript><p>The API reference needs JavaScript. The document itself is at <a href="${escapeHtml(documentUrl)}">${escapeHtml(documentUrl)}</a>.</p></noscript>
<div id="reference"></div>
<script nonce="${nonce}" src="${SCRIPT_PATH}"></script>
<script nonce="${nonce}">Scalar.createApiReference("#reference", ${JSON.stringify(configuration).replace(/</g, "\\u003c")});</script>
</body>
</html>`;
  return new Response(html, {
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}

let bundle: Promise<{ body: Buffer; etag: string }> | undefined;

/** Scalar's standalone bundle, read from the app's node_modules once, with a validator for browsers' caches. */
function loadBundle() {
  // Resolved at run time from the app's folder (the server's working directory), out of the bundler's sight: the
  // app declares @scalar/api-reference.
  const resolve = createRequire(path.join(process.cwd(), "package.json")).resolve;
  bundle ??= readFile(path.join(path.dirname(resolve("@scalar/api-reference")), "browser/standalone.js")).then(
    (body) => ({
      body,
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
    }),
  );
  return bundle;
}

/** The renderer's bundle, for a route handler at `/docs/api/scalar.js`; a cached copy gets a 304. */
export async function apiReferenceScript(request: Request): Promise<Response> {
  const { body, etag } = await loadBundle();
  const headers = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=3600",
    etag,
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(body), { headers });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
