import { createHash } from "node:crypto";
import type { Database } from "@shelf/db";
import { z } from "zod";
import { randomSecret } from "../../auth/key-secret";
import { approveAuthorization, checkAuthorizationRequest } from "../../oauth/authorize";
import { registerClient } from "../../oauth/clients";
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  authorizationServerMetadata,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
} from "../../oauth/metadata";
import { publicProcedure } from "../../procedures";
import { router } from "../../trpc";
import {
  AuthorizationServerMetadataData,
  ProtectedResourceMetadataData,
  RegisteredClientData,
  RegistrationInput,
  RevocationInput,
  RevokedData,
  TokenData,
  TokenInput,
} from "./schemas";
import { requestTokens, revoke, tokenRequestSubject } from "./service";

const tags = ["oauth"];
const EXAMPLE_REDIRECT = "http://127.0.0.1:45678/cb";

/** For the routes' examples: a new client's authorization, approved by the account, and its PKCE verifier. */
async function approvedExample(db: Database, accountId: number) {
  const client = await registerClient(db, { client_name: "Matrix", redirect_uris: [EXAMPLE_REDIRECT] });
  const verifier = randomSecret();
  const settings = {
    issuer: "http://example.invalid",
    resource: "http://example.invalid/api/mcp",
    brand: "shelf",
    secret: "example",
  };
  const outcome = await checkAuthorizationRequest(
    db,
    settings,
    new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: EXAMPLE_REDIRECT,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }),
  );
  if (outcome.kind !== "consent") throw new Error(`The example's authorization was refused: ${outcome.kind}`);
  const location = new URL(await approveAuthorization(db, settings, accountId, outcome.request));
  return { clientId: client.client_id, verifier, code: location.searchParams.get("code") as string };
}

/** Registrations one address may make a minute, unless the deployment sets its own (`SHELF_OAUTH_REGISTRATIONS_PER_MINUTE`). */
export const OAUTH_REGISTRATIONS_PER_MINUTE = 120;

/**
 * Token requests one address may make a minute, unless the deployment sets its own
 * (`SHELF_OAUTH_TOKEN_REQUESTS_PER_MINUTE`): counted before the body is read, so refusals count too. Well above one
 * person's needs: hosted connectors refresh for all their people from a few addresses.
 */
export const OAUTH_TOKEN_REQUESTS_PER_MINUTE = 600;

/** RFC 6749 5.1: an answer carrying a credential is never stored by caches. */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };
const METADATA_CACHE = "public, max-age=3600";

/** The account MCP's resource metadata, served at one of the two places clients look for it. */
function resourceMetadataRoute(path: `/${string}`, summary: string, description: string) {
  return publicProcedure
    .meta({
      ability: "public",
      oauth: { invalidInput: "invalid_request" },
      noDatabase: true,
      limitedBy: false,
      openapi: { method: "GET", path, tags, summary, description: `${description} Counted against no rate limit.` },
    })
    .input(z.object({}))
    .output(ProtectedResourceMetadataData)
    .query(({ ctx }) => {
      ctx.res.headers["cache-control"] = METADATA_CACHE;
      return protectedResourceMetadata(ctx.oauth, ctx.http?.header("host"));
    });
}

/**
 * The authorization server of the account MCP (contract section 9): its metadata, dynamic registration, the token
 * and revocation endpoints. The authorization endpoint is the consent page, served by the web app. Every endpoint is
 * public (a public client names itself by `client_id`), refuses in OAuth's terms, and may be called from any origin.
 */
export const oauthRouter = router({
  serverMetadata: publicProcedure
    .meta({
      ability: "public",
      oauth: { invalidInput: "invalid_request" },
      noDatabase: true,
      limitedBy: false,
      openapi: {
        method: "GET",
        path: AUTHORIZATION_SERVER_METADATA_PATH,
        tags,
        summary: "Authorization server metadata (RFC 8414)",
        description:
          "Where an MCP client finds the authorization, token, registration and revocation endpoints, the scopes (the account abilities), S256 PKCE, public clients (`none`) and whether client ID metadata documents are accepted. Static and cacheable: counted against no rate limit (hosted connectors discover for all their people from a few addresses).",
      },
    })
    .input(z.object({}))
    .output(AuthorizationServerMetadataData)
    .query(({ ctx }) => {
      ctx.res.headers["cache-control"] = METADATA_CACHE;
      return authorizationServerMetadata(ctx.oauth);
    }),

  resourceMetadata: resourceMetadataRoute(
    `${PROTECTED_RESOURCE_METADATA_PATH}/api/mcp`,
    "The account MCP's protected resource metadata (RFC 9728)",
    "The resource (`{base_url}/api/mcp`), its authorization server and scopes: where the account MCP's 401 challenge (`resource_metadata`) sends a client.",
  ),

  resourceMetadataRoot: resourceMetadataRoute(
    PROTECTED_RESOURCE_METADATA_PATH,
    "Protected resource metadata at the root (RFC 9728)",
    "The same document, where clients that ignore the resource's path look for it.",
  ),

  register: publicProcedure
    .meta({
      ability: "public",
      oauth: { invalidInput: "invalid_client_metadata" },
      exactPath: true,
      successStatus: 201,
      // Instead of the API's anonymous budget per address, which is smaller: its own limit is the one to tune.
      addressLimit: { name: "oauth-register", perMinute: OAUTH_REGISTRATIONS_PER_MINUTE, instead: true },
      errors: ["invalid_redirect_uri", "invalid_client_metadata"],
      openapi: {
        method: "POST",
        path: "/oauth/register",
        tags,
        summary: "Register a client (RFC 7591)",
        description: `Dynamic registration of a public client, as MCP hosts send it: whatever authentication method is asked for, the client is registered public and the answer says \`token_endpoint_auth_method: "none"\` (PKCE protects the code); grant types other than \`authorization_code\` and \`refresh_token\` and scopes that are not abilities are dropped, and the answer lists what was granted. Redirect URIs: https, http on a loopback address, or a native app's private-use scheme (RFC 8252 7.1). Refusals: 400 \`invalid_redirect_uri\` or \`invalid_client_metadata\` with \`error_description\`. At most ${OAUTH_REGISTRATIONS_PER_MINUTE} a minute from one address by default (\`SHELF_OAUTH_REGISTRATIONS_PER_MINUTE\`), instead of the API's limit.`,
      },
      example: { build: () => ({ body: { client_name: "Matrix", redirect_uris: ["http://127.0.0.1:45678/cb"] } }) },
    })
    .input(RegistrationInput)
    .output(RegisteredClientData)
    .mutation(async ({ ctx, input }) => {
      Object.assign(ctx.res.headers, NO_STORE);
      return registerClient(ctx.db, input);
    }),

  token: publicProcedure
    .meta({
      ability: "public",
      oauth: { invalidInput: "invalid_request" },
      exactPath: true,
      formBody: "only",
      addressLimit: { name: "oauth-token", perMinute: OAUTH_TOKEN_REQUESTS_PER_MINUTE },
      limitedBy: tokenRequestSubject,
      errors: [
        "invalid_request",
        "invalid_client",
        "invalid_grant",
        "unsupported_grant_type",
        "invalid_scope",
        "invalid_target",
      ],
      example: {
        // A code the example's account approved for a new client: exchanged once, with its verifier.
        build: async ({ db, accountId }) => {
          const approved = await approvedExample(db, accountId);
          return {
            body: {
              grant_type: "authorization_code",
              code: approved.code,
              client_id: approved.clientId,
              redirect_uri: EXAMPLE_REDIRECT,
              code_verifier: approved.verifier,
            },
            headers: { "content-type": "application/x-www-form-urlencoded" },
          };
        },
      },
      openapi: {
        method: "POST",
        path: "/oauth/token",
        tags,
        summary: "Exchange a code or refresh a token (RFC 6749)",
        description: `A URL-encoded form. \`authorization_code\`: the code once, by the client it was made for, with its \`redirect_uri\`, its PKCE \`code_verifier\` and (optionally) \`resource\`; a code presented again revokes what it issued. \`refresh_token\`: rotated on each use; presented again within 30 seconds by its client while the host has used neither token its rotation gave (the access token: for more than 5 seconds), the same pair again (parallel refreshes of one host); any other reuse revokes the app. Access tokens last an hour and work only on the account MCP. Refusals carry RFC 6749's \`error\` and \`error_description\` (401 \`invalid_client\` for a client_id never registered). Counted against the rate limit per connected app (the client and the grant its code or refresh token belongs to), not per address: a hosted connector refreshes for all its people from a few addresses; a code that is used or expired, a refresh token that is revoked, expired or spent beyond its grace, or one naming no live grant of a known client counts against its address. Every request, refusals of its body included, also counts against a ceiling per address: ${OAUTH_TOKEN_REQUESTS_PER_MINUTE} a minute by default (\`SHELF_OAUTH_TOKEN_REQUESTS_PER_MINUTE\`).`,
      },
    })
    .input(TokenInput)
    .output(TokenData)
    .mutation(async ({ ctx, input }) => {
      Object.assign(ctx.res.headers, NO_STORE);
      return requestTokens(ctx.db, ctx.oauth, input);
    }),

  revoke: publicProcedure
    .meta({
      ability: "public",
      oauth: { invalidInput: "invalid_request" },
      exactPath: true,
      formBody: "only",
      errors: ["invalid_request", "invalid_client"],
      example: {
        build: async ({ db }) => {
          const client = await registerClient(db, { client_name: "Matrix", redirect_uris: [EXAMPLE_REDIRECT] });
          return {
            body: { token: `shelf_at_${"x".repeat(43)}`, client_id: client.client_id },
            headers: { "content-type": "application/x-www-form-urlencoded" },
          };
        },
      },
      openapi: {
        method: "POST",
        path: "/oauth/revoke",
        tags,
        summary: "Revoke a token (RFC 7009)",
        description:
          "A URL-encoded form with `token` and `client_id`: an access token ends alone, a refresh token ends its whole grant (the app is disconnected). An unknown token, or another client's, changes nothing and is answered 200 all the same.",
      },
    })
    .input(RevocationInput)
    .output(RevokedData)
    .mutation(async ({ ctx, input }) => {
      Object.assign(ctx.res.headers, NO_STORE);
      await revoke(ctx.db, input);
      return {};
    }),
});
