import type { Database } from "@shelf/db";
import { looksLikeApiKey, resolveApiKey } from "./api-key";
import { type BearerResolver, bearerToken, type CallerType, type Credential } from "./caller";
import { looksLikeDesignToken, resolveDesignToken } from "./design-token";

/** What an entry point reads from `Authorization: Bearer`, and which kinds of caller it lets through. */
export type CredentialPolicy = {
  resolvers: readonly BearerResolver[];
  accepts: ReadonlySet<CallerType>;
};

export const apiKeyResolver: BearerResolver = { matches: looksLikeApiKey, resolve: resolveApiKey };

/** Design agent tokens (`<brand>_design_…`): only the design host's policy has this resolver. */
export const designTokenResolver: BearerResolver = { matches: looksLikeDesignToken, resolve: resolveDesignToken };

/** The account API (contract 5.2): account API keys only. */
export const accountApiPolicy: CredentialPolicy = { resolvers: [apiKeyResolver], accepts: new Set(["api_key"]) };

const MAX_TOKEN_LENGTH = 512;

/**
 * The caller behind an Authorization header. A well-formed credential of a kind this entry point does not take
 * (an OAuth token outside the account MCP) is refused exactly like an unknown key (contract 5.3).
 */
export async function resolveCredential(
  db: Database,
  authorization: string | null | undefined,
  policy: CredentialPolicy = accountApiPolicy,
  clientAddress?: string,
): Promise<Credential> {
  const token = bearerToken(authorization);
  if (token === undefined) return { status: "none" };
  if (token === null || token.length > MAX_TOKEN_LENGTH) return { status: "invalid" };
  const resolver = policy.resolvers.find((candidate) => candidate.matches(token));
  if (!resolver) return { status: "invalid" };
  const credential = await resolver.resolve(db, token, clientAddress);
  if (credential.status === "valid" && !policy.accepts.has(credential.caller.type)) return { status: "invalid" };
  return credential;
}
