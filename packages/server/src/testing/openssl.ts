import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): what goes before the 32 raw key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Whether openssl, an independent verifier, accepts an Ed25519 signature over `data` made by the key whose 32 raw
 * bytes are given in base64 (Sparkle's SUPublicEDKey form, as `signing:public-key` prints it).
 */
export async function opensslVerifies(publicKeyBase64: string, data: Uint8Array, signatureBase64: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-openssl-"));
  try {
    const der = Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKeyBase64, "base64")]);
    const pem = `-----BEGIN PUBLIC KEY-----\n${der.toString("base64")}\n-----END PUBLIC KEY-----\n`;
    await fs.writeFile(path.join(dir, "pub.pem"), pem);
    await fs.writeFile(path.join(dir, "data"), data);
    await fs.writeFile(path.join(dir, "sig"), Buffer.from(signatureBase64, "base64"));
    return await promisify(execFile)("openssl", [
      "pkeyutl",
      "-verify",
      "-pubin",
      "-inkey",
      path.join(dir, "pub.pem"),
      "-rawin",
      "-in",
      path.join(dir, "data"),
      "-sigfile",
      path.join(dir, "sig"),
    ]).then(
      () => true,
      () => false,
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
