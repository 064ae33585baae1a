import type { Database, Executor } from "@shelf/db";
import { sql } from "drizzle-orm";
import { createApiKey, KEY_SLOTS_PER_SCOPE, revokeApiKey } from "../../auth/key-issuing";
import { DomainError, parseInput, ValidationError } from "../../errors";
import { ACTIVE_ENTITLEMENT_E_SQL, entitledSql } from "../../product-access";
import { isoSql, sqlRows } from "../../sql-text";
import { type CreatedKeyData, CreateOwnKeyInput, type KeyListData, type KeyListItem } from "./schemas";

type KeyListRow = Omit<KeyListItem, "product"> & { product_id: number | null; product_name: string | null };

function toKeyListItem(row: KeyListRow): KeyListItem {
  const { product_id, product_name, ...rest } = row;
  return { ...rest, product: product_id == null ? null : { id: product_id, name: product_name ?? "" } };
}

/** How many ended (revoked or expired) keys the key list shows. */
const ENDED_KEYS_LISTED = 50;

const KEY_LIST_COLUMNS = sql.raw(`k.id, k.name, k.prefix, k.abilities, k.kind, k.client,
  k.product_id, p.name as product_name, ${isoSql("k.created_at")} as created_at,
  ${isoSql("k.last_used_at")} as last_used_at, k.last_used_address, ${isoSql("k.expires_at")} as expires_at,
  ${isoSql("k.revoked_at")} as revoked_at`);

/**
 * The account's live keys (newest first) and the slots of every scope it can create keys in: account-wide, each
 * product of its library, and each product that still has keys. The counts come from the same rule `createApiKey`
 * enforces.
 */
export async function listOwnKeys(db: Database, accountId: number): Promise<KeyListData> {
  const [keys, ended, scopes] = await Promise.all([
    sqlRows<KeyListRow>(
      db,
      sql`select ${KEY_LIST_COLUMNS} from api_keys k left join products p on p.id = k.product_id
        where k.account_id = ${accountId} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
        order by k.created_at desc, k.id desc`,
    ),
    sqlRows<KeyListRow>(
      db,
      sql`select ${KEY_LIST_COLUMNS} from api_keys k left join products p on p.id = k.product_id
        where k.account_id = ${accountId} and (k.revoked_at is not null or k.expires_at <= now())
        order by coalesce(k.revoked_at, k.expires_at) desc, k.id desc limit ${ENDED_KEYS_LISTED}`,
    ),
    sqlRows<{ product_id: number | null; product_name: string | null; used: number }>(
      db,
      sql`with scopes as (
          select null::integer as product_id
          union select e.product_id from entitlements e where e.account_id = ${accountId} and ${sql.raw(ACTIVE_ENTITLEMENT_E_SQL)}
          union select k.product_id from api_keys k where k.account_id = ${accountId} and k.product_id is not null
            and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
        )
        select s.product_id, p.name as product_name,
          (select count(*)::integer from api_keys k where k.account_id = ${accountId}
            and k.product_id is not distinct from s.product_id
            and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) as used
        from scopes s left join products p on p.id = s.product_id
        order by s.product_id is not null, p.name, s.product_id`,
    ),
  ]);
  return {
    keys: keys.map(toKeyListItem),
    ended: ended.map(toKeyListItem),
    scopes: scopes.map((scope) => ({
      product: scope.product_id == null ? null : { id: scope.product_id, name: scope.product_name ?? "" },
      used: scope.used,
      free: Math.max(0, KEY_SLOTS_PER_SCOPE - scope.used),
      limit: KEY_SLOTS_PER_SCOPE,
    })),
  };
}

async function ownKeyItem(db: Executor, accountId: number, keyId: number): Promise<KeyListItem> {
  const [row] = await sqlRows<KeyListRow>(
    db,
    sql`select ${KEY_LIST_COLUMNS} from api_keys k left join products p on p.id = k.product_id
      where k.id = ${keyId} and k.account_id = ${accountId}`,
  );
  if (!row) throw new DomainError("not_found", "API key not found.");
  return toKeyListItem(row);
}

/**
 * A key the signed-in person creates for themselves: account abilities only, scoped to a product of their library or
 * to the whole account, through the same slot rule as the operator CLI (`createApiKey`).
 */
export async function createOwnKey(
  db: Database,
  accountId: number,
  rawInput: CreateOwnKeyInput,
  brand: string,
): Promise<CreatedKeyData> {
  const input = parseInput(CreateOwnKeyInput, rawInput);
  const expiresAt = input.expires_at === null ? null : new Date(input.expires_at);
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw new ValidationError({ expires_at: ["must be in the future"] });
  }
  if (input.product_id !== null) {
    const [entitled] = await sqlRows<{ entitled: boolean }>(
      db,
      sql`select ${entitledSql(accountId, input.product_id)} as entitled`,
    );
    if (!entitled?.entitled) throw new ValidationError({ product_id: ["is not a product in your library"] });
  }
  const { key, record } = await createApiKey(
    db,
    {
      accountId,
      kind: "created",
      name: input.name,
      abilities: input.abilities,
      productId: input.product_id,
      expiresAt,
      formToken: input.form_token,
    },
    brand,
  );
  return { key, record: await ownKeyItem(db, accountId, record.id) };
}

/** Revokes one of the account's own keys; it is refused from the very next request on. */
export async function revokeOwnKey(db: Database, accountId: number, keyId: number): Promise<KeyListItem> {
  await revokeApiKey(db, accountId, keyId);
  return ownKeyItem(db, accountId, keyId);
}
