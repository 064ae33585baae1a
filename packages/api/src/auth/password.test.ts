import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, needsRehash, verifyPassword } from "./password";

/** A hash as the earlier scrypt scheme wrote it: `scrypt$N$r$p$salt$hash`. */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize("NFKC"), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 128 * 1024 * 1024 });
  return ["scrypt", 2 ** 15, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$");
}

describe("password hashing", () => {
  it("stores argon2id with OWASP's parameters and verifies the right password only", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(stored).not.toContain("correct horse");
    await expect(verifyPassword("correct horse battery staple", stored)).resolves.toBe(true);
    await expect(verifyPassword("correct horse battery stapl", stored)).resolves.toBe(false);
    await expect(verifyPassword("", stored)).resolves.toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it("salts every hash, so the same password never hashes the same twice", async () => {
    const [first, second] = await Promise.all([hashPassword("same password"), hashPassword("same password")]);
    expect(first).not.toBe(second);
    await expect(verifyPassword("same password", second)).resolves.toBe(true);
  });

  it("treats Unicode compositions of the same text as the same password", async () => {
    const stored = await hashPassword("caf\u00e9 cr\u00e8me");
    await expect(verifyPassword("cafe\u0301 cre\u0300me", stored)).resolves.toBe(true);
  });

  it("still verifies hashes of the earlier scrypt scheme, and marks them for rehashing", async () => {
    const stored = legacyScryptHash("old words");
    await expect(verifyPassword("old words", stored)).resolves.toBe(true);
    await expect(verifyPassword("other words", stored)).resolves.toBe(false);
    expect(needsRehash(stored)).toBe(true);
  });

  it("marks argon2id hashes with other parameters for rehashing", async () => {
    const { hash } = await import("@node-rs/argon2");
    const weaker = await hash("words", { memoryCost: 8192, timeCost: 1, parallelism: 1 });
    await expect(verifyPassword("words", weaker)).resolves.toBe(true);
    expect(needsRehash(weaker)).toBe(true);
  });

  it("rejects malformed, foreign or tampered hashes instead of throwing", async () => {
    const stored = await hashPassword("secret words");
    const legacy = legacyScryptHash("secret words");
    const [, N, r, p, salt, hash] = legacy.split("$");
    const flipped = Buffer.from(hash as string, "base64");
    flipped[0] = (flipped[0] as number) ^ 1;
    const argonParts = stored.split("$");
    const argonHash = Buffer.from(argonParts[5] as string, "base64");
    argonHash[0] = (argonHash[0] as number) ^ 1;
    const tamperedArgon = [...argonParts.slice(0, 5), argonHash.toString("base64").replace(/=+$/, "")].join("$");
    for (const bad of [
      "",
      "plain-text",
      "$argon2id$",
      "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$",
      stored.replace("m=19456", "m=4194304"),
      stored.replace("t=2", "t=1000"),
      tamperedArgon,
      stored.replace("$argon2id$", "$argon2i$"),
      `bcrypt$${N}$${r}$${p}$${salt}$${hash}`,
      `scrypt$${N}$${r}$${p}$${salt}`,
      `scrypt$1000$${r}$${p}$${salt}$${hash}`,
      `scrypt$${2 ** 30}$${r}$${p}$${salt}$${hash}`,
      `scrypt$${N}$0$${p}$${salt}$${hash}`,
      `scrypt$${N}$${r}$${p}$$${hash}`,
      `scrypt$${N}$${r}$${p}$${salt}$${flipped.toString("base64")}`,
    ]) {
      await expect(verifyPassword("secret words", bad), bad).resolves.toBe(false);
    }
  });

  it("refuses to hash an empty or oversized password", async () => {
    await expect(hashPassword("")).rejects.toThrow(RangeError);
    await expect(hashPassword("x".repeat(1025))).rejects.toThrow(RangeError);
  });
});
