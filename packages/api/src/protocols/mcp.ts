import { allowedHostsFor, sameOrigin } from "@shelf/server/edge/hosts";
import type { EdgeRequest } from "@shelf/server/edge/request";
import type { EdgeResult } from "@shelf/server/edge/results";
import { accountAbilities } from "../abilities";
import type { ApiProtocol } from "../api-edge";
import type { Credential } from "../auth/caller";
import type { CredentialPolicy } from "../auth/credential";
import type { EdgeRoute } from "../edge/routes";
import { domainErrorResult } from "../errors";
import { PROTECTED_RESOURCE_METADATA_PATH } from "../oauth/metadata";
import { askedOrigin } from "../oauth/resource";
import { accountMcpPolicy } from "../oauth/tokens";
import { asJsonRpcError, readRpcMessage } from "./json-rpc";

/** A refusal with what the endpoint's challenge is made of: the route, the request, the credential it carried. */
type Refused = { result: EdgeResult; route: EdgeRoute; request: EdgeRequest; credential: Credential | undefined };

/** What differs between the MCP endpoints of the hosts: which credentials they take, and how they challenge. */
export type McpCredentials = {
  credentials: CredentialPolicy;
  /** The credential as the endpoint takes it (one the endpoint refuses made invalid), given its base URL. */
  accept?: (credential: Credential, route: EdgeRoute, base: URL) => Credential;
  /** The `WWW-Authenticate` of a 401 or 403, if any. */
  challenge: (refused: Refused, base: URL) => string | undefined;
};

/**
 * An MCP endpoint (`meta.mcp`) over the edge: only under this server's own names (DNS rebinding: a page on another
 * site reaching it through a name that resolves here), the host's MCP credentials, one JSON-RPC message a request,
 * and refusals as JSON-RPC errors, with the host's Bearer challenge on 401 and 403. `allowedHosts`: names (with port)
 * requests may use besides the base URL's; loopback ones are added for a loopback base.
 */
export function mcpProtocol(baseUrl: string, allowedHosts: readonly string[], terms: McpCredentials): ApiProtocol {
  const base = new URL(baseUrl);
  const hosts = allowedHostsFor(base, allowedHosts);
  const { accept } = terms;
  return {
    speaks: (route) => route.meta.mcp !== undefined,
    admit: (request) => (sameOrigin(request, hosts, base) ? undefined : domainErrorResult("forbidden_origin")),
    credentials: terms.credentials,
    ...(accept ? { accept: (credential: Credential, route: EdgeRoute) => accept(credential, route, base) } : {}),
    readBody: async (request, maxBodyBytes) => {
      const read = await readRpcMessage(request, maxBodyBytes);
      return read.ok ? { ok: true, body: read.message } : read;
    },
    wrap: (result, { route, request, credential }) => {
      if (result.status === 401 || result.status === 403) {
        const challenge = terms.challenge({ result, route, request, credential }, base);
        if (challenge) result.headers["www-authenticate"] = challenge;
      }
      return asJsonRpcError(result);
    },
  };
}

/**
 * The account MCP's: account API keys and the access tokens of sign-in issued for this very resource (RFC 8707), and
 * the Bearer challenge that sends a client to discovery (RFC 9728 section 5.1) or to ask for more (RFC 6750 section
 * 3.1).
 */
export const accountMcpCredentials: McpCredentials = {
  credentials: accountMcpPolicy,
  // A sign-in token is for one resource: one issued for another is refused as if unknown.
  accept: (credential, route, base) =>
    credential.status === "valid" &&
    credential.caller.type === "oauth_token" &&
    credential.caller.resource !== `${base.origin}${route.path}`
      ? { status: "invalid" }
      : credential,
  challenge: ({ result, route, request, credential }, base) => {
    // Under the loopback name the request used, which the resource metadata then names too (oauth/resource.ts).
    const metadata = `${askedOrigin(base, request.header("host"))}${PROTECTED_RESOURCE_METADATA_PATH}${route.path}`;
    if (result.status === 401) {
      const scope = route.meta.mcp?.defaultScopes?.join(" ") ?? "";
      const error = credential && credential.status !== "none" ? ', error="invalid_token"' : "";
      return `Bearer resource_metadata="${metadata}", scope="${scope}"${error}`;
    }
    if (typeof result.body !== "string") return undefined;
    const body = JSON.parse(result.body) as { error?: string; ability?: string };
    if (body.error !== "missing_api_key_ability") return undefined;
    // What the call needs plus what the credential already holds: clients ask for exactly the challenge's scope
    // again (the MCP step-up flow), and a token for the missing ability alone would lose every tool it used.
    const needed = body.ability ?? route.meta.ability;
    const caller = credential?.status === "valid" ? credential.caller : undefined;
    const held: ReadonlySet<string> = caller && "abilities" in caller ? caller.abilities : new Set<string>();
    const scope = accountAbilities.filter((name) => name === needed || held.has(name)).join(" ");
    return `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`;
  },
};

/**
 * The design MCP's: design agent tokens (`policy`, the design host's), and on 401 the Bearer challenge of RFC 6750
 * section 3 without resource metadata: an operator creates these tokens, no authorization server issues them, so
 * there is nothing for a client to discover.
 */
export function designMcpCredentials(policy: CredentialPolicy): McpCredentials {
  return {
    credentials: policy,
    challenge: ({ result, credential }) => {
      if (result.status !== 401) return undefined;
      const realm = 'Bearer realm="Shelf design MCP"';
      return credential && credential.status !== "none"
        ? `${realm}, error="invalid_token", error_description="This endpoint takes design agent tokens only."`
        : realm;
    },
  };
}
