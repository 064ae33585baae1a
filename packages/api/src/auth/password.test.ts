import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password";

describe("password hashing", () => {
  it("stores scrypt parameters, salt and hash, and verifies the right password only", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/);
    expect(stored).not.toContain("correct horse");
    await expect(verifyPassword("correct horse battery staple", stored)).resolves.toBe(true);
    await expect(verifyPassword("correct horse battery stapl", stored)).resolves.toBe(false);
    await expect(verifyPassword("", stored)).resolves.toBe(false);
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

  it("rejects malformed, foreign or tampered hashes instead of throwing", async () => {
    const stored = await hashPassword("secret words");
    const [, N, r, p, salt, hash] = stored.split("$");
    const flipped = Buffer.from(hash as string, "base64");
    flipped[0] = (flipped[0] as number) ^ 1;
    for (const bad of [
      "",
      "plain-text",
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
