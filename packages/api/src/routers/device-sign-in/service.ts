import { randomBytes } from "node:crypto";
import type { Database, Executor } from "@shelf/db";
import { schema } from "@shelf/db";
import type { AttemptLimiter } from "@shelf/server/attempt-limit";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { defaultAbilities } from "../../abilities";
import type { SessionCaller } from "../../auth/caller";
import { createApiKey, KEY_SLOTS_PER_SCOPE } from "../../auth/key-issuing";
import { hashSecret, randomSecret } from "../../auth/key-secret";
import { DomainError, isUniqueViolation, ValidationError } from "../../errors";
import { sqlRows } from "../../sql-text";
import { type DeviceSignInClientId, deviceSignInClients } from "./clients";
import type {
  DeviceCodeData,
  DeviceCodeInput,
  DeviceSignInRequestData,
  DeviceTokenData,
  DeviceTokenInput,
} from "./schemas";

const { deviceSignIns, accounts } = schema;

/** Codes live ten minutes: long enough to find a browser and sign in, short enough that a lost code soon dies. */
export const DEVICE_CODE_TTL_SECONDS = 600;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 3.5: each `slow_down` adds five seconds to the interval the client must keep. */
const SLOW_DOWN_STEP_SECONDS = 5;
const MAX_INTERVAL_SECONDS = 60;
/** A poll this much early still counts as on time: clients sleep the interval, networks add jitter either way. */
const POLL_GRACE_MS = 1000;

/**
 * User codes: 8 letters from 20 consonants (RFC 8628 6.1): no vowels so no words, no digits to mistake for letters,
 * case-insensitive, about 34 bits. Guessing is bounded by the per-account attempt limit and the ten-minute life.
 */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
const USER_CODE_LENGTH = 8;

function generateUserCode(): string {
  let code = "";
  while (code.length < USER_CODE_LENGTH) {
    for (const byte of randomBytes(16)) {
      // 240 is the largest multiple of 20 below 256: every letter equally likely.
      if (byte < 240) code += USER_CODE_ALPHABET[byte % 20];
      if (code.length === USER_CODE_LENGTH) break;
    }
  }
  return code;
}

/** `bdwp hqpk`, `BDWP-HQPK` and `BDWPHQPK` are the same code; anything else is not a code at all (null). */
export function normalizeUserCode(text: string): string | null {
  const letters = text.toUpperCase().replace(/[\s-]/g, "");
  if (letters.length !== USER_CODE_LENGTH) return null;
  for (const letter of letters) if (!USER_CODE_ALPHABET.includes(letter)) return null;
  return letters;
}

export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function clientName(clientId: string): string {
  return deviceSignInClients[clientId as DeviceSignInClientId]?.name ?? clientId;
}

/**
 * Starts a device sign-in (RFC 8628 3.1-3.2): a device code for the client to poll with, a user code for the person.
 * Only hashes of both are stored. Sign-ins that ended more than a day ago are swept away here.
 */
export async function startDeviceSignIn(
  db: Database,
  input: DeviceCodeInput,
  baseUrl: string,
): Promise<DeviceCodeData> {
  await db.delete(deviceSignIns).where(lt(deviceSignIns.expiresAt, sql`now() - interval '1 day'`));
  const deviceCode = randomSecret();
  for (let attempt = 0; ; attempt++) {
    const userCode = generateUserCode();
    try {
      await db.insert(deviceSignIns).values({
        deviceCodeHash: hashSecret(deviceCode),
        userCodeHash: hashSecret(userCode),
        client: input.client_id,
        deviceName: input.device_name ?? null,
        intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
        expiresAt: sql`now() + make_interval(secs => ${DEVICE_CODE_TTL_SECONDS})`,
      });
    } catch (error) {
      // A user code still on record (one in 2^34): draw another.
      if (attempt < 4 && isUniqueViolation(error, "device_sign_ins_user_code_key")) continue;
      throw error;
    }
    const shown = formatUserCode(userCode);
    const verificationUri = `${baseUrl}/device`;
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${shown}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    };
  }
}

type PollRow = {
  id: number;
  client: string;
  status: "pending" | "approved" | "denied" | "issued";
  failure: string | null;
  account_id: number | null;
  device_name: string | null;
  interval_seconds: number;
  expired: boolean;
  /** Milliseconds since the previous poll, null on the first. */
  since_last_poll_ms: number | null;
};

type PollOutcome = { ok: true; token: DeviceTokenData } | { ok: false; error: DomainError };

/**
 * One poll of the client (RFC 8628 3.4-3.5). The row is locked for the poll, so parallel polls of one code see one
 * another: only the first after approval receives the key, and the code is spent. A poll sooner than the interval
 * gets `slow_down` and a longer interval, which is kept even though the answer is an error.
 */
export async function pollDeviceSignIn(db: Database, input: DeviceTokenInput, brand: string): Promise<DeviceTokenData> {
  const outcome = await db.transaction(async (tx): Promise<PollOutcome> => {
    const [row] = await sqlRows<PollRow>(
      tx,
      sql`select id, client, status, failure, account_id, device_name, interval_seconds, expires_at <= now() as expired,
          (extract(epoch from now() - last_polled_at) * 1000)::float8 as since_last_poll_ms
        from device_sign_ins where device_code_hash = ${hashSecret(input.device_code)} for update`,
    );
    if (!row || row.client !== input.client_id) return { ok: false, error: new DomainError("invalid_grant") };
    if (row.status === "issued") {
      return { ok: false, error: new DomainError("invalid_grant", "This device code was already used.") };
    }
    if (row.expired) return { ok: false, error: new DomainError("expired_token") };

    const tooSoon =
      row.since_last_poll_ms !== null && row.since_last_poll_ms < row.interval_seconds * 1000 - POLL_GRACE_MS;
    const interval = tooSoon
      ? Math.min(row.interval_seconds + SLOW_DOWN_STEP_SECONDS, MAX_INTERVAL_SECONDS)
      : row.interval_seconds;
    await tx
      .update(deviceSignIns)
      .set({ lastPolledAt: sql`now()`, intervalSeconds: interval })
      .where(eq(deviceSignIns.id, row.id));
    if (tooSoon) {
      return {
        ok: false,
        error: new DomainError("slow_down", `Polling too fast: wait ${interval} seconds between polls.`, { interval }),
      };
    }
    if (row.status === "pending") return { ok: false, error: new DomainError("authorization_pending") };
    if (row.status === "denied" && row.failure) {
      // RFC 8628's error for a sign-in that will not be approved, with the reason a client can explain.
      return { ok: false, error: new DomainError("access_denied", SLOTS_FULL, { reason: row.failure }) };
    }
    if (row.status === "denied") return { ok: false, error: new DomainError("access_denied") };

    const accountId = row.account_id as number;
    const name = row.device_name ? `${clientName(row.client)} on ${row.device_name}` : clientName(row.client);
    const { key, record } = await createApiKey(
      tx,
      { accountId, kind: "device", client: row.client, name: name.slice(0, 100) },
      brand,
    );
    await tx.update(deviceSignIns).set({ status: "issued", apiKeyId: record.id }).where(eq(deviceSignIns.id, row.id));
    const [account] = await tx.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId));
    return {
      ok: true,
      token: {
        access_token: key,
        token_type: "Bearer",
        key: {
          id: record.id,
          name: record.name,
          prefix: record.prefix,
          abilities: record.abilities,
          expires_at: record.expires_at,
        },
        account: { id: accountId, email: account?.email ?? "" },
      },
    };
  });
  if (!outcome.ok) throw withDescription(outcome.error);
  return outcome.token;
}

/** RFC 6749 5.2 clients read `error_description`; the contract's clients read `message`. Both say the same. */
function withDescription(error: DomainError): DomainError {
  return new DomainError(error.code, error.message, { ...error.details, error_description: error.message });
}

function requireUserCode(text: string): string {
  const code = normalizeUserCode(text);
  if (!code) throw new ValidationError({ user_code: ["is not a code of 8 letters like BDWP-HQPK"] });
  return code;
}

const NO_PENDING_SIGN_IN =
  "No sign-in is waiting for this code: it may be mistyped, expired or already decided. Check it, or start again on the device.";

/**
 * Runs one guess of a user code by a signed-in person: counted before it is judged, given back when it names a
 * waiting sign-in, refused past the limit.
 */
async function guessUserCode<T>(limiter: AttemptLimiter, accountId: number, guess: () => Promise<T | null>) {
  const key = `account:${accountId}`;
  const attempt = await limiter.take(key);
  if (!attempt.allowed) {
    throw new DomainError(
      "rate_limited",
      `Too many codes that matched nothing: try again in ${Math.ceil(attempt.retryAfterSeconds / 60)} minutes.`,
      { retry_after_seconds: attempt.retryAfterSeconds },
    );
  }
  let found: T | null;
  try {
    found = await guess();
  } catch (error) {
    // The code named a sign-in (or the guess never ran to the end): not a wrong guess.
    await limiter.giveBack(key);
    throw error;
  }
  if (found === null) throw new DomainError("not_found", NO_PENDING_SIGN_IN);
  await limiter.giveBack(key);
  return found;
}

/** The sign-in a user code names, while it still waits for a decision (pending and unexpired). */
const waitingFor = (code: string) =>
  and(
    eq(deviceSignIns.userCodeHash, hashSecret(code)),
    eq(deviceSignIns.status, "pending"),
    gt(deviceSignIns.expiresAt, sql`now()`),
  );

/** The waiting sign-in a user code names, for the approval page to show before the person decides. */
export async function findDeviceSignIn(
  db: Database,
  caller: SessionCaller,
  limiter: AttemptLimiter,
  userCode: string,
): Promise<DeviceSignInRequestData> {
  const code = requireUserCode(userCode);
  return guessUserCode(limiter, caller.accountId, async () => {
    const [row] = await db.select().from(deviceSignIns).where(waitingFor(code));
    if (!row) return null;
    return {
      user_code: formatUserCode(code),
      client_id: row.client,
      client_name: clientName(row.client),
      device_name: row.deviceName,
      abilities: [...defaultAbilities.device],
      requested_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    };
  });
}

/**
 * The person's decision on a waiting sign-in. Only a pending, unexpired sign-in can be decided, once: a second
 * decision, or one racing it, finds nothing to decide. Approval binds the sign-in to the person's account; the key
 * itself is made when the device next polls, so its plain value exists only in that answer.
 */
export async function decideDeviceSignIn(
  db: Database,
  caller: SessionCaller,
  limiter: AttemptLimiter,
  input: { user_code: string; decision: "approve" | "deny" },
): Promise<{ decision: "approve" | "deny"; client_name: string; device_name: string | null }> {
  const code = requireUserCode(input.user_code);
  const decided = await guessUserCode(limiter, caller.accountId, () =>
    db.transaction(async (tx) => {
      const [row] = await tx
        .select({ id: deviceSignIns.id, client: deviceSignIns.client, deviceName: deviceSignIns.deviceName })
        .from(deviceSignIns)
        .where(waitingFor(code))
        .for("update");
      if (!row) return null;
      const noRoom = input.decision === "approve" && !(await roomForDeviceKey(tx, caller.accountId, row.client));
      await tx
        .update(deviceSignIns)
        .set({
          status: input.decision === "approve" && !noRoom ? "approved" : "denied",
          failure: noRoom ? "api_key_limit_reached" : null,
          accountId: caller.accountId,
          decidedAt: sql`now()`,
        })
        .where(eq(deviceSignIns.id, row.id));
      return { noRoom, decision: input.decision, client_name: clientName(row.client), device_name: row.deviceName };
    }),
  );
  // The sign-in has ended (the device hears why on its next poll); the page says the same to the person.
  if (decided.noRoom) throw new DomainError("api_key_limit_reached", SLOTS_FULL);
  const { noRoom: _, ...answer } = decided;
  return answer;
}

const SLOTS_FULL = `Every account-wide key slot (${KEY_SLOTS_PER_SCOPE}) is taken, so this sign-in has ended: revoke a key in developer settings, then start the sign-in again on the device.`;

/**
 * Approving promises the device a key: there is none to promise when the account-wide slots are full and no key of
 * the same client could make room (contract 5.10). The poll that makes the key applies the same rule again, under its
 * lock.
 */
async function roomForDeviceKey(tx: Executor, accountId: number, client: string): Promise<boolean> {
  const [room] = await sqlRows<{ live: number; replaceable: number }>(
    tx,
    sql`select count(*)::int as live, count(*) filter (where kind = 'device' and client = ${client})::int as replaceable
      from api_keys where account_id = ${accountId} and product_id is null and revoked_at is null
        and (expires_at is null or expires_at > now())`,
  );
  return !(room && room.live >= KEY_SLOTS_PER_SCOPE && room.replaceable === 0);
}
