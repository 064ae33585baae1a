import { approveAuthorization, checkAuthorizationRequest, denyAuthorization } from "@shelf/api";
import { consentTokenMatches } from "../../../../src/auth/consent-token";
import { currentSession } from "../../../../src/auth/session";
import { getRuntime } from "../../../../src/runtime";

function page(status: number, message: string): Response {
  return new Response(message, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}

function leave(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

/**
 * The consent form's decision. Only from this site (Origin), by the signed-in person the form was made for (token),
 * for the request the form showed, checked again: then the client hears the answer at its redirect URI.
 */
export async function POST(request: Request): Promise<Response> {
  const runtime = getRuntime();
  const origin = request.headers.get("origin");
  // The site's own origin: the configured one, or the one this request was addressed to (its Host).
  const host = request.headers.get("host");
  const own = new Set([new URL(runtime.oauth.issuer).origin, `http://${host}`, `https://${host}`]);
  if (origin !== null && !own.has(origin)) {
    return page(403, "This decision was not sent from this site's consent page.");
  }
  const form = await request.formData().catch(() => null);
  const serialized = form?.get("request");
  const token = form?.get("token");
  const decision = form?.get("decision");
  if (typeof serialized !== "string" || typeof token !== "string" || (decision !== "approve" && decision !== "deny")) {
    return page(400, "The consent form is incomplete: go back to the app and start again.");
  }
  const session = await currentSession();
  if (!session) return page(401, "You are signed out: go back to the app and start again.");
  if (!consentTokenMatches(runtime.authSecret, session.sessionId, serialized, token)) {
    return page(403, "This consent form is not yours or has changed: go back to the app and start again.");
  }
  const outcome = await checkAuthorizationRequest(runtime.db, runtime.oauth, new URLSearchParams(serialized));
  if (outcome.kind === "invalid") return page(400, outcome.message);
  if (outcome.kind === "redirect") return leave(outcome.location);
  if (decision === "deny") return leave(denyAuthorization(runtime.oauth, outcome.request));
  // What the person left ticked (unticked boxes send nothing); only scopes the request asked for can be granted.
  const chosen = form?.getAll("scope").filter((value): value is string => typeof value === "string") ?? [];
  return leave(await approveAuthorization(runtime.db, runtime.oauth, session.accountId, outcome.request, chosen));
}
