import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, SignJWT } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { jwks, signJwt } from "./jws";
import { loadSigningKeyring } from "./keyring";

const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-jws-"));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe("signJwt", () => {
  it("writes the very bytes jose writes for the same header and claims, and jose verifies them", async () => {
    const keyring = await loadSigningKeyring(path.join(dir, "signing-keys.json"));
    const issuedAt = new Date("2026-11-26T10:00:00.500Z");
    const expiresAt = new Date("2026-12-26T10:00:00Z");
    const claims = { aud: "product:7", account_id: 3, product_id: 7, bundle_id: null, device_id: "é-device" };
    const token = await signJwt(keyring, claims, {
      type: "license+jwt",
      issuer: "http://shelf.test",
      subject: "account:3",
      issuedAt,
      expiresAt,
    });

    const key = keyring.active("jws");
    const payload = decodeJwt(token);
    expect(Object.keys(payload)).toEqual([...Object.keys(claims), "iss", "sub", "jti", "iat", "exp"]);
    expect(payload).toMatchObject({ ...claims, iss: "http://shelf.test", sub: "account:3", iat: 1_795_687_200 });
    // jose, given the same claims and the jti this token drew, writes the same token byte for byte (Ed25519 is
    // deterministic).
    const byJose = await new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "license+jwt" })
      .setIssuer("http://shelf.test")
      .setSubject("account:3")
      .setJti(payload.jti as string)
      .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(key.privateKey);
    expect(token).toBe(byJose);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "EdDSA", kid: key.kid, typ: "license+jwt" });

    const jwk = jwks(keyring).keys.find((candidate) => candidate.kid === key.kid);
    const verified = await jwtVerify(token, await importJWK(jwk as never, "EdDSA"), {
      issuer: "http://shelf.test",
      audience: "product:7",
      currentDate: issuedAt,
    });
    expect(verified.payload.device_id).toBe("é-device");
  });

  it("draws a new jti for every token", async () => {
    const keyring = await loadSigningKeyring(path.join(dir, "signing-keys.json"));
    const options = { type: "license+jwt", issuer: "i", subject: "s", issuedAt: new Date(), expiresAt: new Date() };
    const [first, second] = await Promise.all([signJwt(keyring, {}, options), signJwt(keyring, {}, options)]);
    expect(decodeJwt(first).jti).not.toBe(decodeJwt(second).jti);
  });
});
