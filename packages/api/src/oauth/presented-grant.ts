import type { Database } from "@shelf/db";
import { sql } from "drizzle-orm";
import { hashSecret } from "../auth/key-secret";
import { sqlRows } from "../sql-text";
import { REFRESH_REUSE_GRACE_SECONDS } from "./refresh";
import { CODE, REFRESH_TOKEN } from "./tokens";

/**
 * The grant a token request's code or refresh token belongs to, if it is one of this client's and could still be
 * answered: a code unused and unexpired, a refresh token unrevoked, unexpired and unused or within its grace, under a
 * grant not revoked. What the request is counted against, so that a host refreshing for many people from one address
 * is counted per person. Old codes and tokens name nobody's budget (codes sit in URLs and logs, and one person can
 * make any number of dead ones): whoever presents them is counted by address.
 */
export async function liveGrantPresented(
  db: Database,
  input: { clientId: string; code?: string; refreshToken?: string },
): Promise<number | null> {
  const { clientId, code, refreshToken } = input;
  const [row] =
    code !== undefined && CODE.test(code)
      ? await sqlRows<{ grant_id: number }>(
          db,
          sql`select c.grant_id from oauth_codes c join oauth_grants g on g.id = c.grant_id
            where c.code_hash = ${hashSecret(code)} and c.client_id = ${clientId} and c.used_at is null
              and c.expires_at > clock_timestamp() and g.revoked_at is null`,
        )
      : refreshToken !== undefined && REFRESH_TOKEN.test(refreshToken)
        ? await sqlRows<{ grant_id: number }>(
            db,
            sql`select t.grant_id from oauth_tokens t join oauth_grants g on g.id = t.grant_id
              where t.token_hash = ${hashSecret(refreshToken)} and t.kind = 'refresh' and g.client_id = ${clientId}
                and t.revoked_at is null and g.revoked_at is null and t.expires_at > clock_timestamp()
                and (t.used_at is null
                  or t.used_at > clock_timestamp() - make_interval(secs => ${REFRESH_REUSE_GRACE_SECONDS}))`,
          )
        : [];
  return row?.grant_id ?? null;
}
