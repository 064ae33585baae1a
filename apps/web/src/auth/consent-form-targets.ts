import { isPrivateUseRedirect } from "@shelf/api";

/** The consent page: its form leads to the app's redirect URI. */
const CONSENT_PATH = "/oauth/authorize";

/**
 * The consent page's form leads, through a 303, to the app's redirect URI, and browsers hold that redirect to the
 * page's form-action: its origin is added, read from the request's own redirect_uri (the decision checks it).
 */
export function consentFormTargets(path: string, target: string): string[] {
  if (path !== CONSENT_PATH) return [];
  const redirectUri = new URL(target, "http://page.invalid").searchParams.get("redirect_uri");
  if (!redirectUri) return [];
  try {
    const { protocol, origin } = new URL(redirectUri);
    if (protocol === "https:" || protocol === "http:") return [origin];
    // A native app's private-use scheme (RFC 8252 7.1) is allowed as a scheme source; the decision checks the URI.
    return isPrivateUseRedirect(redirectUri) ? [protocol] : [];
  } catch {
    return [];
  }
}
