import { createPublicKey, verify } from "node:crypto";
import { opensslVerifies } from "@shelf/server/testing/openssl";
import { canonicalize } from "json-canonicalize";

/**
 * Verifiers written apart from the service's signing code (no jose, no `canonicalize`): Node's own Ed25519 and
 * openssl, a JWKS read as plain JSON, and another RFC 8785 implementation, so that a test passing means any client
 * can verify what the service signs.
 */
export type Jwks = { keys: { kty: string; crv: string; x: string; kid: string; alg?: string }[] };

function keyFor(jwks: Jwks, kid: unknown) {
  const jwk = jwks.keys.find((key) => key.kid === kid);
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519") return null;
  return jwk;
}

/**
 * The header and claims of a compact JWS whose EdDSA signature verifies with the JWKS key its `kid` names, checked
 * by Node and by openssl; null when either refuses it.
 */
export async function verifyCompactJws(
  token: string,
  jwks: Jwks,
): Promise<{ header: Record<string, unknown>; claims: Record<string, unknown> } | null> {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = JSON.parse(Buffer.from(headerPart, "base64url").toString("utf8"));
  if (header.alg !== "EdDSA") return null;
  const jwk = keyFor(jwks, header.kid);
  if (!jwk) return null;
  const signingInput = Buffer.from(`${headerPart}.${payloadPart}`, "ascii");
  const signature = Buffer.from(signaturePart, "base64url");
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
  if (!verify(null, signingInput, publicKey, signature)) return null;
  const raw = Buffer.from(jwk.x, "base64url").toString("base64");
  if (!(await opensslVerifies(raw, signingInput, signature.toString("base64")))) return null;
  return { header, claims: JSON.parse(Buffer.from(payloadPart, "base64url").toString("utf8")) };
}

/**
 * Whether a document's detached `signature` (Ed25519, base64url) verifies over the RFC 8785 form of its other fields
 * with the JWKS key its `kid` names, by Node and by openssl.
 */
export async function verifyCanonicalSignature(document: Record<string, unknown>, jwks: Jwks): Promise<boolean> {
  const { signature, ...signed } = document;
  if (typeof signature !== "string") return false;
  const jwk = keyFor(jwks, signed.kid);
  if (!jwk) return false;
  const bytes = Buffer.from(canonicalize(signed), "utf8");
  const raw = Buffer.from(signature, "base64url");
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
  if (!verify(null, bytes, publicKey, raw)) return false;
  return opensslVerifies(Buffer.from(jwk.x, "base64url").toString("base64"), bytes, raw.toString("base64"));
}
