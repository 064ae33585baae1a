import { randomUUID, sign } from "node:crypto";
import canonicalize from "canonicalize";
import type { JWTPayload } from "jose";
import type { SigningKeyring } from "./keyring";

/** How signed JSON names its algorithm: Ed25519 (RFC 8037), the only one this service signs with. */
export const JWS_ALGORITHM = "EdDSA";

export type PublicJwk = { kty: "OKP"; crv: "Ed25519"; x: string; kid: string; alg: "EdDSA"; use: "sig" };

/**
 * Every public key of the set as a JWK Set (RFC 7517), retired keys included, so that a certificate or policy signed
 * before a rotation still verifies.
 */
export function jwks(keyring: SigningKeyring): { keys: PublicJwk[] } {
  return {
    keys: keyring.keys.map((key) => {
      const { x } = key.publicKey.export({ format: "jwk" });
      return { kty: "OKP", crv: "Ed25519", x: x as string, kid: key.kid, alg: JWS_ALGORITHM, use: "sig" };
    }),
  };
}

/**
 * A compact JWS (a JWT, RFC 7519) signed with the certificate key: EdDSA, the key's `kid` in the protected header,
 * the claims, then `iss`, `sub`, a unique `jti`, `iat` and `exp`. Signed here with node:crypto's one-shot Ed25519
 * rather than jose's WebCrypto path: the same bytes (Ed25519 is deterministic; a test compares both), without a
 * thread-pool job and WebCrypto's argument checks on every license check (a tenth of its CPU, measured).
 */
export async function signJwt(
  keyring: SigningKeyring,
  claims: JWTPayload,
  options: { type: string; issuer: string; subject: string; issuedAt: Date; expiresAt: Date },
): Promise<string> {
  const key = keyring.active("jws");
  const header = { alg: JWS_ALGORITHM, kid: key.kid, typ: options.type };
  const payload = {
    ...claims,
    iss: options.issuer,
    sub: options.subject,
    jti: randomUUID(),
    iat: Math.floor(options.issuedAt.getTime() / 1000),
    exp: Math.floor(options.expiresAt.getTime() / 1000),
  };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString("base64url")}`;
}

const base64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/** The RFC 8785 (JCS) canonical form of a JSON value: what a detached signature over it covers. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("The value has no JSON form.");
  return text;
}

/**
 * A detached Ed25519 signature with the certificate key over the canonical form of the value `build` makes for that
 * key's kid (so the kid can be one of the signed fields): base64url of the 64 signature bytes.
 */
export function signCanonical<T>(keyring: SigningKeyring, build: (kid: string) => T): { value: T; signature: string } {
  const key = keyring.active("jws");
  const value = build(key.kid);
  const signature = sign(null, Buffer.from(canonicalJson(value), "utf8"), key.privateKey);
  return { value, signature: signature.toString("base64url") };
}
