import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The consent form's CSRF token: an HMAC (with the auth secret) of the person's session and the exact authorization
 * request, so a decision posted from anywhere else, for another person or another request, is refused.
 */
export function consentToken(secret: string, sessionId: number, request: string): string {
  return createHmac("sha256", secret).update(`consent:${sessionId}:${request}`).digest("base64url");
}

export function consentTokenMatches(secret: string, sessionId: number, request: string, token: string): boolean {
  const expected = Buffer.from(consentToken(secret, sessionId, request));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
