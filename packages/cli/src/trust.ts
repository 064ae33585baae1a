import { createHash, createPublicKey, verify } from "node:crypto";
import path from "node:path";
import { ClientConfigData, JwksData } from "@shelf/api/schemas";
import canonicalize from "canonicalize";
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import type { z } from "zod";
import type { Context } from "./context";
import { CliError, ExitCode } from "./errors";
import { readJson, writeJson } from "./paths";
import { UPGRADE_COMMAND } from "./version";

export type Jwks = z.infer<typeof JwksData>;
export type ClientPolicy = z.infer<typeof ClientConfigData>;

/** The cache folder of one service: its JWKS, its last verified policy, its license certificates. */
export function serviceCache(context: Context): string {
  const id = createHash("sha256").update(context.baseUrl).digest("hex").slice(0, 16);
  return path.join(context.dirs.cache, "services", id);
}

/**
 * The service's signing keys: fetched and cached when online; the cached set when the service cannot be reached
 * (null when there is none).
 */
export async function loadJwks(context: Context, online: boolean): Promise<Jwks | null> {
  const file = path.join(serviceCache(context), "jwks.json");
  if (online) {
    try {
      const fresh = await context.anonymousApi().get("/.well-known/jwks.json", JwksData, { anonymous: true });
      await writeJson(file, fresh);
      return fresh;
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode !== ExitCode.unreachable) throw error;
    }
  }
  return readJson<Jwks | null>(file, null);
}

/** Whether the policy's detached Ed25519 signature over its RFC 8785 form verifies with the key its `kid` names. */
export function policySignatureValid(policy: ClientPolicy, jwks: Jwks): boolean {
  const { signature, ...signed } = policy;
  const jwk = jwks.keys.find((key) => key.kid === policy.kid);
  if (!jwk) return false;
  const text = canonicalize(signed);
  if (text === undefined) return false;
  try {
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
    return verify(null, Buffer.from(text, "utf8"), key, Buffer.from(signature, "base64url"));
  } catch {
    return false;
  }
}

/**
 * The signed client policy and the keys that verify it: fetched, verified against the JWKS and cached when online;
 * the cached (already verified) ones when the service cannot be reached. A policy whose signature does not verify is
 * refused (exit 8), never trusted.
 */
export async function loadTrust(
  context: Context,
): Promise<{ policy: ClientPolicy | null; jwks: Jwks | null; online: boolean }> {
  const file = path.join(serviceCache(context), "policy.json");
  let fresh: ClientPolicy;
  try {
    fresh = await (await context.api()).get("/api/client-config", ClientConfigData);
  } catch (error) {
    if (error instanceof CliError && error.exitCode === ExitCode.unreachable) {
      return {
        policy: await readJson<ClientPolicy | null>(file, null),
        jwks: await loadJwks(context, false),
        online: false,
      };
    }
    throw error;
  }
  const jwks = await loadJwks(context, true);
  if (!jwks || !policySignatureValid(fresh, jwks)) {
    throw new CliError(
      "The service's client policy is not signed by a key of its JWKS: it was not trusted.",
      ExitCode.verificationFailed,
      "policy_signature_invalid",
      "Check --base-url; if it is right, report it with `shelf report problem`.",
    );
  }
  await writeJson(file, fresh);
  return { policy: fresh, jwks, online: true };
}

/** Whether version `a` is older than `b` (semver core numbers; a pre-release is older than its release). */
export function olderThan(a: string, b: string): boolean {
  const parse = (version: string) => {
    const [core = "", pre] = version.replace(/^v/, "").split("+")[0]?.split("-", 2) ?? [];
    return { numbers: core.split(".").map((part) => Number(part) || 0), pre: pre ?? null };
  };
  const left = parse(a);
  const right = parse(b);
  for (let index = 0; index < 3; index++) {
    const difference = (left.numbers[index] ?? 0) - (right.numbers[index] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return left.pre !== null && right.pre === null;
}

/** Refuses to go on below the policy's minimum client version (exit 7, with the upgrade command). */
export function requireClientVersion(policy: ClientPolicy | null, version: string): void {
  if (policy && olderThan(version, policy.min_client_version)) {
    throw new CliError(
      `This shelf (${version}) is older than the service allows (${policy.min_client_version} or newer).`,
      ExitCode.refused,
      "client_too_old",
      `Upgrade: ${UPGRADE_COMMAND}`,
      { min_client_version: policy.min_client_version, client_version: version },
    );
  }
}

export type CertificateClaims = JWTPayload & { device_id?: string | null };

/**
 * A license certificate checked against the JWKS: its claims once its EdDSA signature, type, audience, device and
 * expiry verify; else whether it merely expired (signed by the service, past its time) or is not the service's at all.
 */
export async function verifyCertificate(
  token: string,
  jwks: Jwks,
  expected: { productId: number; deviceId: string },
  now = new Date(),
): Promise<{ claims: CertificateClaims } | { problem: "expired" | "invalid" }> {
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as unknown as JSONWebKeySet), {
      algorithms: ["EdDSA"],
      typ: "license+jwt",
      audience: `product:${expected.productId}`,
      currentDate: now,
    });
    if (payload.device_id !== expected.deviceId) return { problem: "invalid" };
    return { claims: payload as CertificateClaims };
  } catch (error) {
    // jose checks the signature before the claims: an expiry is only reported of a token the service signed.
    return { problem: error instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
}
