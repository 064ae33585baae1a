import { loadSigningKeyring } from "@shelf/api";
import { loadDemoSecret, seedDemo } from "@shelf/demo";
import type { Command } from "../command";

export const demo: Command = {
  name: "demo",
  summary: "Load the demo data set (idempotent) and print the demo key",
  synopsis: "",
  details: [
    "Account demo@shelf.test with a dozen products. The demo key is derived from SHELF_DATA_DIR/demo-secret:",
    "it is the key `npm start` printed, and it stays valid; delete that file to get a new one.",
  ],
  options: {},
  prepare() {
    return async ({ db, brand, dataDir, store, signingKeys }) => {
      const files = { store, keyring: await loadSigningKeyring(signingKeys) };
      const result = await seedDemo(db, { brand, secret: await loadDemoSecret(dataDir), files });
      return {
        json: {
          account_id: result.accountId,
          key: result.key,
          prefix: result.prefix,
          product_ids: result.productIds,
        },
        text: [
          `Demo data ready: account ${result.accountId} (demo@shelf.test), ${result.productIds.length} products.`,
          `  key  ${result.key}`,
          "The same key as the web app's demo key, for as long as the data folder keeps its demo secret.",
        ].join("\n"),
      };
    };
  },
};
