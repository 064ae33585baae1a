import type { Database } from "@shelf/db";
import { signCanonical } from "@shelf/server/signing/jws";
import type { SigningKeyring } from "@shelf/server/signing/keyring";
import type { Caller } from "../../auth/caller";
import { preparedRows } from "../../sql-text";
import type { ClientConfigData } from "./schemas";

type PolicyRow = {
  min_client_version: string;
  ttl_days: number;
  recheck_hours: number;
  version: number;
  revoked: { product_id: number; device_id: string }[];
};

/**
 * The policy, and the revocations that concern this account: devices it has seen that an operator cut off from a
 * product (in the key's scope). Other accounts' device identifiers are never sent. $1 account, $2 product or null.
 */
const POLICY_SQL = `
  select cp.min_client_version, cp.ttl_days, cp.recheck_hours, cp.version,
    coalesce((select json_agg(json_build_object('product_id', r.product_id, 'device_id', r.device_identifier)
        order by r.product_id, r.device_identifier)
      from client_policy_revocations r
      where ($2::integer is null or r.product_id = $2::integer)
        and exists (select 1 from devices d where d.account_id = $1 and d.identifier = r.device_identifier)), '[]')
      as revoked
  from client_policy cp`;

/**
 * `GET /api/client-config`: the client policy, signed now. The signature covers the canonical form (RFC 8785) of
 * every other field, `signed_at` and `kid` included, so a client can tell a fresh policy from a replayed one.
 */
export async function clientConfig(db: Database, keyring: SigningKeyring, caller: Caller): Promise<ClientConfigData> {
  const [row] = await preparedRows<PolicyRow>(db, POLICY_SQL, [caller.accountId, caller.productId]);
  const policy = row as PolicyRow;
  const signedAt = new Date().toISOString();
  const { value, signature } = signCanonical(keyring, (kid) => ({
    min_client_version: policy.min_client_version,
    revoked: policy.revoked,
    policy: { ttl_days: policy.ttl_days, recheck_hours: policy.recheck_hours },
    signed_at: signedAt,
    version: policy.version,
    kid,
  }));
  return { ...value, signature };
}
