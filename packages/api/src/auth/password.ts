import { type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";
import { hash as argon2Hash, verify as argon2Verify, parseOptions } from "@node-rs/argon2";
import { MAX_PASSWORD_LENGTH } from "../schemas/common";

/**
 * Passwords are stored as argon2id PHC strings (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`), with OWASP's
 * parameters: 19 MiB, 2 passes, 1 lane. The parameters travel with each hash, so raising them later leaves existing
 * hashes verifiable, and `needsRehash` says which to upgrade at the next sign-in.
 *
 * Hashes written before argon2id (`scrypt$N$r$p$salt$hash`) still verify, and are rehashed on the next sign-in.
 */
export const ARGON2_COST = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Upper bounds for parameters read back from storage: a tampered row must not make verification hog memory. */
const MAX_ARGON2_MEMORY_KIB = 262_144;
const MAX_ARGON2_TIME = 16;
const MAX_ARGON2_LANES = 8;
const MAX_SCRYPT_N = 2 ** 20;
const MAX_SCRYPT_R = 32;
const MAX_SCRYPT_P = 16;

/** NFKC first: the same text typed on two keyboards (composed or decomposed accents) is the same password. */
function normalized(password: string): string {
  return password.normalize("NFKC");
}

function usable(password: string): boolean {
  return password.length > 0 && password.length <= MAX_PASSWORD_LENGTH;
}

export async function hashPassword(password: string): Promise<string> {
  if (!usable(password)) throw new RangeError(`A password has 1 to ${MAX_PASSWORD_LENGTH} characters.`);
  return argon2Hash(normalized(password), ARGON2_COST);
}

/** False for a wrong password and for anything that is not a hash this module wrote or can read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (!usable(password)) return false;
  if (stored.startsWith("$argon2id$")) return verifyArgon2(password, stored);
  if (stored.startsWith("scrypt$")) return verifyScrypt(password, stored);
  return false;
}

/** Whether a stored hash is older or weaker than what `hashPassword` writes now. */
export function needsRehash(stored: string): boolean {
  if (!stored.startsWith("$argon2id$")) return true;
  try {
    const options = parseOptions(stored);
    return (
      options.memoryCost !== ARGON2_COST.memoryCost ||
      options.timeCost !== ARGON2_COST.timeCost ||
      options.parallelism !== ARGON2_COST.parallelism
    );
  } catch {
    return true;
  }
}

async function verifyArgon2(password: string, stored: string): Promise<boolean> {
  try {
    const options = parseOptions(stored);
    if (
      options.memoryCost > MAX_ARGON2_MEMORY_KIB ||
      options.timeCost > MAX_ARGON2_TIME ||
      options.parallelism > MAX_ARGON2_LANES ||
      options.outputLen < 16
    ) {
      return false;
    }
    return await argon2Verify(stored, normalized(password));
  } catch {
    return false;
  }
}

function deriveScrypt(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  const { N = 0, r = 0, p = 0 } = options;
  // scrypt needs 128 * N * r bytes; the default limit (32 MiB) is too tight for N = 2^15, r = 8 plus overhead.
  const maxmem = 256 * N * r * p + 32 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(normalized(password), salt, length, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6) return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const validCost =
    Number.isInteger(N) &&
    N > 1 &&
    N <= MAX_SCRYPT_N &&
    (N & (N - 1)) === 0 &&
    Number.isInteger(r) &&
    r >= 1 &&
    r <= MAX_SCRYPT_R &&
    Number.isInteger(p) &&
    p >= 1 &&
    p <= MAX_SCRYPT_P;
  if (!validCost) return false;
  const salt = Buffer.from(parts[4] as string, "base64");
  const expected = Buffer.from(parts[5] as string, "base64");
  if (salt.length === 0 || expected.length < 16) return false;
  const actual = await deriveScrypt(password, salt, expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}
