import { createHash, createHmac, randomBytes } from "node:crypto";

/** Base58 (no 0, O, I, l): keys survive being read aloud or copied from a terminal. */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** 32 base58 characters carry 187 random bits. */
const RANDOM_LENGTH = 32;
export const VISIBLE_PREFIX_LENGTH = 14;

/** Base58 characters from a stream of bytes. */
function base58(length: number, bytes: (round: number) => Buffer): string {
  let out = "";
  // Rejection sampling keeps every character uniform: 232 is the largest multiple of 58 below 256.
  for (let round = 0; out.length < length; round++) {
    for (const byte of bytes(round)) {
      if (byte < 232) out += ALPHABET[byte % 58];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateKeySecret(brand: string): string {
  return `${brand}_${base58(RANDOM_LENGTH, () => randomBytes(RANDOM_LENGTH * 2))}`;
}

/** A design agent token: the brand, `_design_`, and 187 random bits in base58 (see DESIGN_TOKEN_PATTERN). */
export function generateDesignTokenSecret(brand: string): string {
  return `${brand}_design_${base58(RANDOM_LENGTH, () => randomBytes(RANDOM_LENGTH * 2))}`;
}

/**
 * A key derived from a secret seed and a purpose (HMAC-SHA256 in counter mode): the same seed gives the same key.
 * Only for the demo key, so that every process sharing a data folder prints the same working key.
 */
export function deriveKeySecret(brand: string, seed: string, purpose: string): string {
  return `${brand}_${base58(RANDOM_LENGTH, (round) => createHmac("sha256", seed).update(`${purpose}:${round}`).digest())}`;
}

/**
 * How every secret this service hands out is stored: SHA-256 in lowercase hex. API keys, device and user codes,
 * OAuth codes and tokens, web and MCP session ids alike; the plain value is never kept.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A random secret of 256 bits, 43 base64url characters: session ids, device codes, OAuth codes and tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

export function visiblePrefix(secret: string): string {
  return secret.slice(0, VISIBLE_PREFIX_LENGTH);
}

/** The shape of every key this service issues, whatever brand it was issued under. */
export const KEY_SECRET_PATTERN = new RegExp(`^[a-z][a-z0-9]{1,11}_[${ALPHABET}]{${RANDOM_LENGTH}}$`);
