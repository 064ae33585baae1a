import { loadSigningKeyring, rawPublicKey } from "@shelf/api";
import type { Command } from "../command";

export const signingPublicKey: Command = {
  name: "signing:public-key",
  summary: "Print the public half of the signing key (Sparkle's SUPublicEDKey)",
  synopsis: "",
  details: [
    "The active Ed25519 key of the signing key set (SHELF_SIGNING_KEYS_FILE, else signing-keys.json in the data",
    "folder; made on first use). Put the base64 value in the app's Info.plist as SUPublicEDKey.",
  ],
  options: {},
  database: false,
  prepare() {
    return async ({ signingKeysFile }) => {
      const { active } = await loadSigningKeyring(signingKeysFile);
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
