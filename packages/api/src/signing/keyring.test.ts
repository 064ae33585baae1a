import { createPublicKey, verify } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { SetupError } from "@shelf/db/env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opensslVerifies } from "../testing/openssl";
import { loadSigningKeyring, rawPublicKey, thumbprint } from "./keyring";

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-signing-"));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("the signing key set", () => {
  it("is made once, readable by its owner only, and every process loading it at once gets the same key", async () => {
    const file = path.join(dir, "once/signing-keys.json");
    const loaded = await Promise.all([1, 2, 3, 4].map(() => loadSigningKeyring(file)));
    expect(new Set(loaded.map((ring) => ring.active.kid)).size).toBe(1);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await loadSigningKeyring(file)).active.kid).toBe(loaded[0]?.active.kid);
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
    const { kid, signature } = ring.sign(data);
    expect(kid).toBe(ring.active.kid);
    expect(signature).toHaveLength(64);
    expect(rawPublicKey(ring.active.publicKey)).toHaveLength(32);
    expect(verify(null, data, ring.active.publicKey, signature)).toBe(true);
    const publicKey = rawPublicKey(ring.active.publicKey).toString("base64");
    expect(await opensslVerifies(publicKey, data, signature.toString("base64"))).toBe(true);
    const tampered = Buffer.from(signature);
    tampered[0] = (tampered[0] as number) ^ 1;
    expect(await opensslVerifies(publicKey, data, tampered.toString("base64"))).toBe(false);
  });

  it("signs with the newest key that is not retired, keeps retired ones, and refuses a broken file in one line", async () => {
    const file = path.join(dir, "rotate/signing-keys.json");
    const first = await loadSigningKeyring(file);
    const stored = JSON.parse(await fs.readFile(file, "utf8"));
    const second = await loadSigningKeyring(path.join(dir, "other/signing-keys.json"));
    const secondStored = JSON.parse(await fs.readFile(path.join(dir, "other/signing-keys.json"), "utf8"));
    stored.keys[0].retired_at = new Date().toISOString();
    stored.keys.push({ ...secondStored.keys[0], created_at: new Date(Date.now() + 1000).toISOString() });
    await fs.writeFile(file, JSON.stringify(stored));
    const ring = await loadSigningKeyring(file);
    expect(ring.active.kid).toBe(second.active.kid);
    expect(ring.keys.map((key) => key.kid)).toEqual([second.active.kid, first.active.kid]);

    await fs.writeFile(file, "{not json");
    const error = await loadSigningKeyring(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as Error).message).toMatch(/is not a signing key set/);
  });
});
