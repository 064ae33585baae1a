import { allowedHostsFor, sameOrigin } from "@shelf/server/edge/hosts";
import { accountAbilities } from "../abilities";
import type { ApiProtocol } from "../api-edge";
import { asJsonRpcError, readRpcMessage } from "../edge/json-rpc";
import { errorResult } from "../edge/results";
import { PROTECTED_RESOURCE_METADATA_PATH } from "../oauth/metadata";
import { askedOrigin } from "../oauth/resource";
import { accountMcpPolicy } from "../oauth/tokens";

/**
 * An MCP endpoint (`meta.mcp`) over the edge: only under this server's own names (DNS rebinding: a page on another
 * site reaching it through a name that resolves here), account API keys and the access tokens of sign-in issued for
 * this very resource (RFC 8707), one JSON-RPC message a request, and refusals as JSON-RPC errors with, on 401 and
 * 403, the Bearer challenge that sends a client to discovery (RFC 9728 section 5.1) or to ask for more (RFC 6750
 * section 3.1). `allowedHosts`: names (with port) requests may use besides the base URL's; loopback ones are added
 * for a loopback base.
 */
export function mcpProtocol(baseUrl: string, allowedHosts: readonly string[] = []): ApiProtocol {
  const base = new URL(baseUrl);
  const hosts = allowedHostsFor(base, allowedHosts);
  return {
    speaks: (route) => route.meta.mcp !== undefined,
    admit: (request) => (sameOrigin(request, hosts, base) ? undefined : errorResult("forbidden_origin")),
    credentials: accountMcpPolicy,
    // A sign-in token is for one resource: one issued for another is refused as if unknown.
    accept: (credential, route) =>
      credential.status === "valid" &&
      credential.caller.type === "oauth_token" &&
      credential.caller.resource !== `${base.origin}${route.path}`
        ? { status: "invalid" }
        : credential,
    readBody: async (request, maxBodyBytes) => {
      const read = await readRpcMessage(request, maxBodyBytes);
      return read.ok ? { ok: true, body: read.message } : read;
    },
    wrap: (result, { route, request, credential }) => {
      // Under the loopback name the request used, which the resource metadata then names too (oauth/resource.ts).
      const metadata = `${askedOrigin(base, request.header("host"))}${PROTECTED_RESOURCE_METADATA_PATH}${route.path}`;
      if (result.status === 401) {
        const scope = route.meta.mcp?.defaultScopes.join(" ") ?? "";
        const error = credential && credential.status !== "none" ? ', error="invalid_token"' : "";
        result.headers["www-authenticate"] = `Bearer resource_metadata="${metadata}", scope="${scope}"${error}`;
      }
      if (result.status === 403 && typeof result.body === "string") {
        const body = JSON.parse(result.body) as { error?: string; ability?: string };
        if (body.error === "missing_api_key_ability") {
          // What the call needs plus what the credential already holds: clients ask for exactly the challenge's
          // scope again (the MCP step-up flow), and a token for the missing ability alone would lose every tool it
          // used.
          const needed = body.ability ?? route.meta.ability;
          const caller = credential?.status === "valid" ? credential.caller : undefined;
          const held: ReadonlySet<string> = caller && "abilities" in caller ? caller.abilities : new Set<string>();
          const scope = accountAbilities.filter((name) => name === needed || held.has(name)).join(" ");
          result.headers["www-authenticate"] =
            `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`;
        }
      }
      return asJsonRpcError(result);
    },
  };
}
