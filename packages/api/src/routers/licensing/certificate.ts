import { signJwt } from "@shelf/server/signing/jws";
import type { SigningKeyring } from "@shelf/server/signing/keyring";

const DAY_MS = 86_400_000;

/** The `typ` of a license certificate's header, so that no other JWT this service signs passes for one. */
export const CERTIFICATE_TYPE = "license+jwt";

export type CertificateFacts = {
  issuer: string;
  accountId: number;
  productId: number;
  bundleId: string | null;
  /** The device identifier the certificate is for; null when the check named none. */
  deviceId: string | null;
  accessSource: string | null;
  accessExpiresAt: string | null;
  updatesSupportedUntil: string | null;
  issuedAt: Date;
  /** How long a client may trust it offline (the client policy's `ttl_days`). */
  ttlDays: number;
};

/**
 * A license certificate: a compact JWS (EdDSA, `kid` in the header) a client verifies offline with the published JWKS
 * and trusts until `exp`, the policy's offline time or the end of access, whichever comes first. `sub` is the account,
 * `aud` the product; `device_id` binds it to one machine.
 */
export async function issueCertificate(
  keyring: SigningKeyring,
  facts: CertificateFacts,
): Promise<{ token: string; expiresAt: Date }> {
  const offlineUntil = facts.issuedAt.getTime() + facts.ttlDays * DAY_MS;
  const accessEnds = facts.accessExpiresAt ? Date.parse(facts.accessExpiresAt) : Number.POSITIVE_INFINITY;
  // JWT times are whole seconds: round down so that the certificate never outlives access.
  const expiresAt = new Date(Math.floor(Math.min(offlineUntil, accessEnds) / 1000) * 1000);
  const token = await signJwt(
    keyring,
    {
      aud: `product:${facts.productId}`,
      account_id: facts.accountId,
      product_id: facts.productId,
      bundle_id: facts.bundleId,
      device_id: facts.deviceId,
      access_source: facts.accessSource,
      access_expires_at: facts.accessExpiresAt,
      updates_supported_until: facts.updatesSupportedUntil,
    },
    {
      type: CERTIFICATE_TYPE,
      issuer: facts.issuer,
      subject: `account:${facts.accountId}`,
      issuedAt: facts.issuedAt,
      expiresAt,
    },
  );
  return { token, expiresAt };
}
