import { type KeyObject, randomUUID, sign, webcrypto } from "node:crypto";
import canonicalize from "canonicalize";
import { type JWTPayload, SignJWT } from "jose";
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
 * jose signs through WebCrypto: each private key is imported as a CryptoKey once (from a KeyObject, jose would
 * convert it on every signature).
 */
const cryptoKeys = new WeakMap<KeyObject, Promise<webcrypto.CryptoKey>>();

function cryptoKeyOf(key: KeyObject): Promise<webcrypto.CryptoKey> {
  let imported = cryptoKeys.get(key);
  if (!imported) {
    imported = webcrypto.subtle.importKey(
      "pkcs8",
      key.export({ format: "der", type: "pkcs8" }),
      { name: "Ed25519" },
      false,
      ["sign"],
    );
    cryptoKeys.set(key, imported);
  }
  return imported;
}

/**
 * A compact JWS (a JWT, RFC 7519) signed with the certificate key: EdDSA, the key's `kid` in the protected header,
 * `iss`, `iat`, `exp` and a unique `jti` beside the claims.
 */
export async function signJwt(
  keyring: SigningKeyring,
  claims: JWTPayload,
  options: { type: string; issuer: string; subject: string; issuedAt: Date; expiresAt: Date },
): Promise<string> {
  const key = keyring.active("jws");
  return new SignJWT(claims)
    .setProtectedHeader({ alg: JWS_ALGORITHM, kid: key.kid, typ: options.type })
    .setIssuer(options.issuer)
    .setSubject(options.subject)
    .setJti(randomUUID())
    .setIssuedAt(Math.floor(options.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(options.expiresAt.getTime() / 1000))
    .sign(await cryptoKeyOf(key.privateKey));
}

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
