import { loadSigningKeyring, rawPublicKey, rotateSigningKey } from "@shelf/api";
import { flag, optionalString, UsageError } from "../args";
import type { Command } from "../command";

export const signingPublicKey: Command = {
  name: "signing:public-key",
  summary: "Print the public half of the Sparkle signing key (SUPublicEDKey)",
  synopsis: "",
  details: [
    "The Ed25519 key that signs release files and appcasts, from the signing key set (SHELF_SIGNING_KEYS, the file",
    "SHELF_SIGNING_KEYS_FILE names, else signing-keys.json in the data folder; made on first use). Put the base64",
    "value in the app's Info.plist as SUPublicEDKey. License certificates and the client policy are verified with",
    "the JWKS at /.well-known/jwks.json instead.",
  ],
  options: {},
  database: false,
  prepare() {
    return async ({ signingKeys }) => {
      const active = (await loadSigningKeyring(signingKeys)).active("sparkle");
      const publicKey = rawPublicKey(active.publicKey).toString("base64");
      return {
        json: { kid: active.kid, algorithm: "Ed25519", public_key: publicKey, created_at: active.createdAt },
        text: [`Signing key ${active.kid} (Ed25519, since ${active.createdAt})`, `SUPublicEDKey: ${publicKey}`].join(
          "\n",
        ),
      };
    };
  },
};

export const signingRotate: Command = {
  name: "signing:rotate",
  summary: "Make a new signing key for license certificates and the client policy (or, with --sparkle, for Sparkle)",
  synopsis: "[--sparkle] [--out FILE]",
  details: [
    "The new key signs from now on; the previous one stays in the key set and in the JWKS, so what it signed still",
    "verifies. Running servers pick the change up within seconds. Sparkle apps pin their key (SUPublicEDKey), so",
    "the Sparkle key rotates only with --sparkle: ship an app version with the new SUPublicEDKey, signed with the old",
    "key, before rotating, or installed apps will refuse every later update. With SHELF_SIGNING_KEYS the set cannot",
    "be written in place: --out FILE writes the rotated set there, to put into SHELF_SIGNING_KEYS on every instance.",
  ],
  options: { sparkle: { type: "boolean" }, out: { type: "string" } },
  database: false,
  prepare(values) {
    const purpose = flag(values, "sparkle") ? "sparkle" : "jws";
    const out = optionalString(values, "out");
    if (out !== undefined && out.trim() === "") throw new UsageError("--out needs a file name.");
    return async ({ signingKeys }) => {
      const rotation = await rotateSigningKey(signingKeys, purpose, { out });
      const written = out ?? (signingKeys.kind === "file" ? signingKeys.path : "");
      const previous = rotation.previous.retired
        ? `retired (still listed, so what it signed verifies)`
        : `now signs only for ${rotation.previous.use}`;
      return {
        json: { ...rotation, file: written },
        text: [
          `New ${purpose === "sparkle" ? "Sparkle" : "certificate and policy"} signing key ${rotation.kid}, written to ${written}.`,
          `  previous key ${rotation.previous.kid}: ${previous}`,
          ...(purpose === "sparkle"
            ? [
                `  SUPublicEDKey: ${rotation.publicKey}`,
                "Apps that pin the previous key refuse updates signed with this one until they ship the new SUPublicEDKey.",
              ]
            : ["Clients verify with the JWKS at /.well-known/jwks.json, which lists both keys."]),
          ...(out !== undefined ? ["Put this file's content into SHELF_SIGNING_KEYS on every instance."] : []),
        ].join("\n"),
      };
    };
  },
};
