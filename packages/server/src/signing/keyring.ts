import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { SetupError } from "@shelf/db/env";
import { z } from "zod";

/**
 * The one Ed25519 key set this service signs with. Each key has a `kid`, its RFC 7638 JWK thumbprint, and signs for
 * one purpose or both:
 * - `sparkle`: Sparkle's edSignature on release files and signed appcasts. Apps pin this key (SUPublicEDKey), so it
 *   changes only when an operator rotates it on purpose.
 * - `jws`: license certificates and the client policy, verified with the published JWKS, so it may rotate freely.
 * The newest key that is not retired signs for its purpose; retired keys stay in the set (and in the JWKS) so that
 * what they signed still verifies.
 *
 * The set is one JSON document: a file generated into the data folder on first use (the embedded default) or named by
 * SHELF_SIGNING_KEYS_FILE, or the document itself in SHELF_SIGNING_KEYS, so that every instance signs with the same
 * keys. A file is read again when it changes (`signing:rotate`), checked at most every few seconds.
 */
export const signingPurposes = ["sparkle", "jws"] as const;
export type SigningPurpose = (typeof signingPurposes)[number];

export type SigningKey = {
  kid: string;
  createdAt: string;
  retiredAt: string | null;
  /** The purpose this key signs for; null: both. */
  use: SigningPurpose | null;
  privateKey: KeyObject;
  publicKey: KeyObject;
};

export type SigningKeyring = {
  /** Every key, newest first, retired ones included. */
  readonly keys: readonly SigningKey[];
  /** The key that signs for a purpose now. */
  active: (purpose: SigningPurpose) => SigningKey;
  /** Ed25519 (no prehash) over the bytes, with the purpose's active key. */
  sign: (purpose: SigningPurpose, data: Uint8Array) => { kid: string; signature: Buffer };
};

/** Where the key set comes from: a file (reloaded when it changes), or the document itself from the environment. */
export type SigningKeySource = { kind: "file"; path: string } | { kind: "inline"; text: string };

const KeyEntry = z.object({
  kid: z.string().min(1),
  created_at: z.iso.datetime(),
  retired_at: z.iso.datetime().nullable(),
  use: z.enum(signingPurposes).nullable().optional(),
  private_key_pem: z.string().startsWith("-----BEGIN PRIVATE KEY-----"),
});
const KeyDocument = z.object({ keys: z.array(KeyEntry).min(1) });
type KeyDocument = z.infer<typeof KeyDocument>;
type KeyEntry = z.infer<typeof KeyEntry>;

/** How often a key file is checked for changes. */
const RELOAD_CHECK_MS = 2000;

/** The 32 raw bytes of an Ed25519 public key (what Sparkle's SUPublicEDKey holds, base64). */
export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: "jwk" }).x as string, "base64url");
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 of its canonical JWK, base64url. */
export function thumbprint(key: KeyObject): string {
  const { x } = key.export({ format: "jwk" });
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
}

function newKeyEntry(use: SigningPurpose | null, createdAt = new Date()): KeyEntry {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    kid: thumbprint(publicKey),
    created_at: createdAt.toISOString(),
    retired_at: null,
    use,
    private_key_pem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
  };
}

function serialize(document: KeyDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The keys of a document, checked: each is the Ed25519 key its kid names, and each purpose has a key that signs. */
function readDocument(text: string, where: string): SigningKey[] {
  let document: KeyDocument;
  try {
    document = KeyDocument.parse(JSON.parse(text));
  } catch {
    throw new SetupError(
      `${where} is not a signing key set: restore it from a backup (or remove it to make a new one).`,
    );
  }
  const keys = document.keys
    .map((entry) => {
      const privateKey = createPrivateKey(entry.private_key_pem);
      const publicKey = createPublicKey(privateKey);
      if (privateKey.asymmetricKeyType !== "ed25519" || thumbprint(publicKey) !== entry.kid) {
        throw new SetupError(`${where}: key ${entry.kid} is not the Ed25519 key its kid names.`);
      }
      return {
        kid: entry.kid,
        createdAt: entry.created_at,
        retiredAt: entry.retired_at,
        use: entry.use ?? null,
        privateKey,
        publicKey,
      };
    })
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  for (const purpose of signingPurposes) {
    if (!activeKey(keys, purpose)) {
      throw new SetupError(`${where}: no key signs for ${purpose} (every one is retired); run signing:rotate.`);
    }
  }
  return keys;
}

function activeKey(keys: readonly SigningKey[], purpose: SigningPurpose): SigningKey | undefined {
  return keys.find((key) => key.retiredAt === null && (key.use === null || key.use === purpose));
}

function keyringOf(current: () => readonly SigningKey[]): SigningKeyring {
  const active = (purpose: SigningPurpose) => activeKey(current(), purpose) as SigningKey;
  return {
    get keys() {
      return current();
    },
    active,
    sign: (purpose, data) => {
      const key = active(purpose);
      return { kid: key.kid, signature: sign(null, data, key.privateKey) };
    },
  };
}

/** Creates the key file with one key for both purposes unless it exists (exclusively: concurrent starts agree). */
async function ensureKeyFile(file: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    await fs.writeFile(file, serialize({ keys: [newKeyEntry(null)] }), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/**
 * Loads the key set. A file that does not exist is created with one new key; a file is read again when its size or
 * modification time changes, so a rotation reaches running processes within seconds.
 */
export async function loadSigningKeyring(source: SigningKeySource | string): Promise<SigningKeyring> {
  const from: SigningKeySource = typeof source === "string" ? { kind: "file", path: source } : source;
  if (from.kind === "inline") {
    const keys = readDocument(from.text, "SHELF_SIGNING_KEYS");
    return keyringOf(() => keys);
  }
  const file = from.path;
  await ensureKeyFile(file);
  const stamp = () => {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  };
  let loadedStamp = stamp();
  let keys = readDocument(await fs.readFile(file, "utf8"), file);
  let checkedAt = Date.now();
  return keyringOf(() => {
    const now = Date.now();
    if (now - checkedAt < RELOAD_CHECK_MS) return keys;
    checkedAt = now;
    try {
      const latest = stamp();
      if (latest !== loadedStamp) {
        // Synchronous, and only when the file changed: a few hundred bytes, read once per rotation.
        keys = readDocument(readFileSync(file, "utf8"), file);
        loadedStamp = latest;
      }
    } catch {
      // A file being replaced or broken mid-rotation: keep signing with the keys already loaded.
    }
    return keys;
  });
}

export type Rotation = {
  purpose: SigningPurpose;
  /** The new key, which signs for the purpose from now on. */
  kid: string;
  publicKey: string;
  /** The key that signed for the purpose before: retired, or left signing only for the other purpose. */
  previous: { kid: string; retired: boolean; use: SigningPurpose | null };
};

/**
 * A new key for one purpose, written into the key file atomically (a temporary file renamed over it) under a lock
 * file, so two rotations at once never lose a key. The previous key stops signing for that purpose but stays in the
 * set: retired when it signed only for it, else left signing for the other purpose alone. `out` writes the rotated
 * set to another file instead (for a set kept in SHELF_SIGNING_KEYS).
 */
export async function rotateSigningKey(
  source: SigningKeySource,
  purpose: SigningPurpose,
  options: { out?: string; now?: Date } = {},
): Promise<Rotation> {
  const now = options.now ?? new Date();
  if (source.kind === "file") await ensureKeyFile(source.path);
  const target = options.out ?? (source.kind === "file" ? source.path : undefined);
  if (!target)
    throw new SetupError("The key set comes from SHELF_SIGNING_KEYS: name a file to write the rotated set to (--out).");
  return withFileLock(target, async () => {
    const text = source.kind === "file" ? await fs.readFile(source.path, "utf8") : source.text;
    const where = source.kind === "file" ? source.path : "SHELF_SIGNING_KEYS";
    const keys = readDocument(text, where);
    const document = KeyDocument.parse(JSON.parse(text));
    const previous = activeKey(keys, purpose) as SigningKey;
    const other = signingPurposes.find((candidate) => candidate !== purpose) as SigningPurpose;
    // Never older than the newest key: the newest live key signs, whatever the clocks of earlier rotations said.
    const newest = Math.max(...keys.map((key) => Date.parse(key.createdAt)));
    const created = newKeyEntry(purpose, new Date(Math.max(now.getTime(), newest + 1)));
    const entries = document.keys.map((entry) => {
      if (entry.kid !== previous.kid) return entry;
      return previous.use === null ? { ...entry, use: other } : { ...entry, retired_at: now.toISOString() };
    });
    const rotated = { keys: [created, ...entries] };
    readDocument(serialize(rotated), "the rotated key set");
    await writeAtomically(target, serialize(rotated));
    return {
      purpose,
      kid: created.kid,
      publicKey: rawPublicKey(createPublicKey(created.private_key_pem)).toString("base64"),
      previous: {
        kid: previous.kid,
        retired: previous.use !== null,
        use: previous.use === null ? other : previous.use,
      },
    };
  });
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await fs.open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
}

/** A lock older than this was left by a process that died mid-rotation. */
const STALE_LOCK_MS = 30_000;

async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  await fs.mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = await fs.stat(lock).catch(() => null);
      if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS) await fs.rm(lock, { force: true });
      else if (attempt > 200) throw new SetupError(`${lock} is held by another rotation; try again.`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
