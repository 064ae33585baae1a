import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { SetupError } from "@shelf/db/env";
import { z } from "zod";

/**
 * The one Ed25519 key set this service signs with (Sparkle's edSignature and signed feeds now; license certificates
 * and the client policy with the licensing issue). Each key has a `kid`, its RFC 7638 JWK thumbprint; the newest
 * key that is not retired signs, and retired keys stay listed so that what they signed still verifies.
 *
 * The set lives in one JSON file: generated into the data folder on first use (the embedded default), or named by
 * SHELF_SIGNING_KEYS_FILE so that every instance signs with the same keys.
 */
export type SigningKey = {
  kid: string;
  createdAt: string;
  retiredAt: string | null;
  privateKey: KeyObject;
  publicKey: KeyObject;
};

export type SigningKeyring = {
  /** The key that signs. */
  active: SigningKey;
  /** Every key, newest first, retired ones included. */
  keys: SigningKey[];
  /** Ed25519 (no prehash) over the bytes, with the active key. */
  sign: (data: Uint8Array) => { kid: string; signature: Buffer };
};

const KeyFile = z.object({
  keys: z
    .array(
      z.object({
        kid: z.string().min(1),
        created_at: z.iso.datetime(),
        retired_at: z.iso.datetime().nullable(),
        private_key_pem: z.string().startsWith("-----BEGIN PRIVATE KEY-----"),
      }),
    )
    .min(1),
});

/** The 32 raw bytes of an Ed25519 public key (what Sparkle's SUPublicEDKey holds, base64). */
export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: "jwk" }).x as string, "base64url");
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 of its canonical JWK, base64url. */
export function thumbprint(key: KeyObject): string {
  const { x } = key.export({ format: "jwk" });
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
}

function newKeyEntry() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    kid: thumbprint(publicKey),
    created_at: new Date().toISOString(),
    retired_at: null,
    private_key_pem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
  };
}

/**
 * Loads the key set from `file`, creating it with one new key if it does not exist (exclusively: two processes
 * starting at once end up with the same keys).
 */
export async function loadSigningKeyring(file: string): Promise<SigningKeyring> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    await fs.writeFile(file, `${JSON.stringify({ keys: [newKeyEntry()] }, null, 2)}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  let parsed: z.infer<typeof KeyFile>;
  try {
    parsed = KeyFile.parse(JSON.parse(await fs.readFile(file, "utf8")));
  } catch {
    throw new SetupError(
      `${file} is not a signing key set: restore it from a backup (or remove it to make a new one).`,
    );
  }
  const keys = parsed.keys
    .map((entry) => {
      const privateKey = createPrivateKey(entry.private_key_pem);
      const publicKey = createPublicKey(privateKey);
      if (privateKey.asymmetricKeyType !== "ed25519" || thumbprint(publicKey) !== entry.kid) {
        throw new SetupError(`${file}: key ${entry.kid} is not the Ed25519 key its kid names.`);
      }
      return { kid: entry.kid, createdAt: entry.created_at, retiredAt: entry.retired_at, privateKey, publicKey };
    })
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const active = keys.find((key) => key.retiredAt === null);
  if (!active) throw new SetupError(`${file}: every key is retired; add a new one (signing:rotate).`);
  return {
    active,
    keys,
    sign: (data) => ({ kid: active.kid, signature: sign(null, data, active.privateKey) }),
  };
}
