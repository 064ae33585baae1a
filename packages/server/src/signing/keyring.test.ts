import { createPublicKey, verify } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SetupError } from "@shelf/db/env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opensslVerifies } from "../testing/openssl";
import { loadSigningKeyring, rawPublicKey, rotateSigningKey, type SigningKeySource, thumbprint } from "./keyring";

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-signing-"));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const fileSource = (name: string): SigningKeySource => ({
  kind: "file",
  path: path.join(dir, name, "signing-keys.json"),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the signing key set", () => {
  it("is made once, readable by its owner only, and every process loading it at once gets the same key", async () => {
    const file = path.join(dir, "once/signing-keys.json");
    const loaded = await Promise.all([1, 2, 3, 4].map(() => loadSigningKeyring(file)));
    expect(new Set(loaded.map((ring) => ring.active("sparkle").kid)).size).toBe(1);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const again = await loadSigningKeyring(file);
    expect(again.active("sparkle").kid).toBe(loaded[0]?.active("sparkle").kid);
    // A new set has one key for both purposes.
    expect(again.active("jws").kid).toBe(again.active("sparkle").kid);
  });

  it("names keys by their RFC 7638 thumbprint (RFC 8037's example key)", () => {
    const key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" },
      format: "jwk",
    });
    expect(thumbprint(key)).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
  });

  it("signs with Ed25519 as openssl verifies it, and gives Sparkle's 32-byte public key", async () => {
    const ring = await loadSigningKeyring(path.join(dir, "sign/signing-keys.json"));
    const data = Buffer.from("an update archive's bytes");
    const { kid, signature } = ring.sign("sparkle", data);
    const active = ring.active("sparkle");
    expect(kid).toBe(active.kid);
    expect(signature).toHaveLength(64);
    expect(rawPublicKey(active.publicKey)).toHaveLength(32);
    expect(verify(null, data, active.publicKey, signature)).toBe(true);
    const publicKey = rawPublicKey(active.publicKey).toString("base64");
    expect(await opensslVerifies(publicKey, data, signature.toString("base64"))).toBe(true);
    const tampered = Buffer.from(signature);
    tampered[0] = (tampered[0] as number) ^ 1;
    expect(await opensslVerifies(publicKey, data, tampered.toString("base64"))).toBe(false);
  });

  it("reads a key set written before keys had a purpose: its keys sign for both, retired ones stay listed", async () => {
    const file = path.join(dir, "legacy/signing-keys.json");
    const modern = await loadSigningKeyring(path.join(dir, "legacy-source/signing-keys.json"));
    const stored = JSON.parse(await fs.readFile(path.join(dir, "legacy-source/signing-keys.json"), "utf8"));
    const retired = await loadSigningKeyring(path.join(dir, "legacy-retired/signing-keys.json"));
    const retiredStored = JSON.parse(await fs.readFile(path.join(dir, "legacy-retired/signing-keys.json"), "utf8"));
    const legacy = {
      keys: [
        { ...stored.keys[0], use: undefined },
        {
          ...retiredStored.keys[0],
          use: undefined,
          created_at: "2020-01-01T00:00:00.000Z",
          retired_at: "2021-01-01T00:00:00.000Z",
        },
      ],
    };
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify(legacy));
    const ring = await loadSigningKeyring(file);
    expect(ring.active("sparkle").kid).toBe(modern.active("sparkle").kid);
    expect(ring.active("jws").kid).toBe(modern.active("sparkle").kid);
    expect(ring.keys.map((key) => key.kid)).toEqual([modern.active("sparkle").kid, retired.active("sparkle").kid]);
  });

  it("rotates the certificate key alone: Sparkle keeps its pinned key, and the old key stays in the set", async () => {
    const source = fileSource("rotate");
    const before = await loadSigningKeyring(source);
    const pinned = before.active("sparkle").kid;
    const rotation = await rotateSigningKey(source, "jws");
    expect(rotation.previous).toEqual({ kid: pinned, retired: false, use: "sparkle" });
    const after = await loadSigningKeyring(source);
    expect(after.active("sparkle").kid).toBe(pinned);
    expect(after.active("jws").kid).toBe(rotation.kid);
    expect(after.keys.map((key) => key.kid)).toEqual([rotation.kid, pinned]);

    const again = await rotateSigningKey(source, "jws");
    expect(again.previous).toEqual({ kid: rotation.kid, retired: true, use: "jws" });
    const third = await loadSigningKeyring(source);
    expect(third.active("jws").kid).toBe(again.kid);
    expect(third.active("sparkle").kid).toBe(pinned);
    expect(third.keys.find((key) => key.kid === rotation.kid)?.retiredAt).not.toBeNull();
    expect(third.keys).toHaveLength(3);
  });

  it("rotates the Sparkle key only when asked, and reports its new SUPublicEDKey", async () => {
    const source = fileSource("sparkle");
    const before = await loadSigningKeyring(source);
    const rotation = await rotateSigningKey(source, "sparkle");
    const after = await loadSigningKeyring(source);
    expect(after.active("sparkle").kid).toBe(rotation.kid);
    expect(after.active("jws").kid).toBe(before.active("jws").kid);
    expect(rawPublicKey(after.active("sparkle").publicKey).toString("base64")).toBe(rotation.publicKey);
  });

  it("never loses a key when rotations run at once", async () => {
    const source = fileSource("parallel");
    await loadSigningKeyring(source);
    const rotations = await Promise.all([1, 2, 3, 4, 5].map(() => rotateSigningKey(source, "jws")));
    const ring = await loadSigningKeyring(source);
    expect(ring.keys).toHaveLength(6);
    for (const rotation of rotations) expect(ring.keys.map((key) => key.kid)).toContain(rotation.kid);
    expect(ring.keys.filter((key) => key.retiredAt === null)).toHaveLength(2);
  });

  it("takes a rotation into a running process within seconds, without a restart", async () => {
    const source = fileSource("reload");
    const running = await loadSigningKeyring(source);
    const first = running.active("jws").kid;
    const rotation = await rotateSigningKey(source, "jws");
    await sleep(2100);
    expect(running.active("jws").kid).toBe(rotation.kid);
    expect(running.active("jws").kid).not.toBe(first);
  });

  it("reads an inline key set from the environment, and writes its rotation to another file", async () => {
    const made = await loadSigningKeyring(path.join(dir, "inline-source/signing-keys.json"));
    const text = await fs.readFile(path.join(dir, "inline-source/signing-keys.json"), "utf8");
    const inline: SigningKeySource = { kind: "inline", text };
    expect((await loadSigningKeyring(inline)).active("jws").kid).toBe(made.active("jws").kid);
    await expect(rotateSigningKey(inline, "jws")).rejects.toThrow(/--out/);
    const out = path.join(dir, "inline-out/rotated.json");
    const rotation = await rotateSigningKey(inline, "jws", { out });
    const rotated = await loadSigningKeyring({ kind: "inline", text: await fs.readFile(out, "utf8") });
    expect(rotated.active("jws").kid).toBe(rotation.kid);
    expect((await fs.stat(out)).mode & 0o777).toBe(0o600);
  });

  it("refuses a broken file, a key that is not its kid, and a set where nothing signs, in one line each", async () => {
    const file = path.join(dir, "broken/signing-keys.json");
    await loadSigningKeyring(file);
    const stored = JSON.parse(await fs.readFile(file, "utf8"));
    const cases: [string, RegExp][] = [
      ["{not json", /is not a signing key set/],
      [JSON.stringify({ keys: [{ ...stored.keys[0], kid: "wrong" }] }), /is not the Ed25519 key its kid names/],
      [
        JSON.stringify({ keys: [{ ...stored.keys[0], retired_at: new Date().toISOString() }] }),
        /no key signs for sparkle/,
      ],
    ];
    for (const [text, message] of cases) {
      await fs.writeFile(file, text);
      const error = await loadSigningKeyring(file).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SetupError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
