import type { Caller, Credential, DesignCaller } from "../auth/caller";
import { DomainError } from "../errors";
import type { Meta } from "../trpc";

/**
 * Who may call: runs before the input is parsed and before any target is looked up, so a caller without the
 * ability gets 403, never 404 or 422 (contract 5.9). The edge runs it once more before it reads a request body.
 */
export function authorize(meta: Meta | undefined, credential: Credential): Caller | null {
  const required = meta?.ability;
  // A design agent's token is no account's credential: the account API never resolves one, and never takes it.
  const caller = credential.status === "valid" && credential.caller.type !== "design_token" ? credential.caller : null;
  if (required === "public") return caller;
  if (credential.status === "none") {
    if (meta?.anonymous) return null;
    throw new DomainError("missing_api_key");
  }
  if (!caller) throw new DomainError("invalid_api_key");
  if (required === undefined)
    throw new DomainError("missing_api_key_ability", "This endpoint is not open to API keys.");
  if (required === "signed-in") {
    if (caller.type !== "session") {
      throw new DomainError("missing_api_key_ability", "Only a person signed in to the account pages may do this.");
    }
    return caller;
  }
  if (required !== "any-key" && !caller.abilities.has(required)) {
    throw new DomainError("missing_api_key_ability", `The API key lacks the ${required} ability.`);
  }
  return caller;
}

/**
 * Who may call on the design host: a design agent token holding the route's role (a 403 naming it otherwise), decided
 * before the input is read or any target looked up, like `authorize` on the account API.
 */
export function authorizeDesign(meta: Meta | undefined, credential: Credential): DesignCaller {
  if (credential.status === "none") {
    throw new DomainError(
      "missing_api_key",
      "A design agent token is required: send it as Authorization: Bearer <token>.",
    );
  }
  if (credential.status === "invalid" || credential.caller.type !== "design_token") {
    throw new DomainError("invalid_api_key", "The design agent token is unknown, revoked or expired.");
  }
  const required = meta?.role;
  if (!required) throw new DomainError("missing_design_role", "This endpoint declares no role: it is open to none.");
  if (!credential.caller.roles.has(required)) {
    throw new DomainError("missing_design_role", `The design agent token lacks the ${required} role.`);
  }
  return credential.caller;
}
