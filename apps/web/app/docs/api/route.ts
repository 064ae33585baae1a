import { NONCE_HEADER } from "../../../src/auth/headers";

/**
 * The API reference: Scalar's renderer (from npm, served by this app: nothing is loaded from another host) over the
 * live OpenAPI document, with search, schemas and request examples (curl first, JavaScript among the clients).
 * Scalar's AI agent, telemetry and hosted fonts are off; the page's CSP would refuse them anyway. The mount point is
 * not `#api-reference`: the standalone bundle mounts a second, unconfigured reference on an element of that id.
 */
export function GET(request: Request): Response {
  const nonce = request.headers.get(NONCE_HEADER) ?? "";
  const configuration = {
    url: "/api/openapi.json",
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: "never",
    documentDownloadType: "json",
    defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
    metaData: { title: "API reference · Shelf" },
  };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Shelf</title>
<link rel="icon" href="/icon.svg">
</head>
<body>
<noscript><p>The API reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</p></noscript>
<div id="reference"></div>
<script nonce="${nonce}" src="/docs/api/scalar.js"></script>
<script nonce="${nonce}">Scalar.createApiReference("#reference", ${JSON.stringify(configuration)});</script>
</body>
</html>`;
  return new Response(html, {
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}
