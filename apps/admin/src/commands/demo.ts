import { seedDemo } from "@shelf/api";
import type { Command } from "../command";

export const demo: Command = {
  name: "demo",
  summary: "Load the demo data set (idempotent) and print a fresh demo key",
  synopsis: "",
  details: ["Account demo@shelf.test with a dozen products; earlier demo keys are revoked."],
  options: {},
  prepare() {
    return async ({ db, brand }) => {
      const result = await seedDemo(db, { brand });
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
          "The key is shown only this once: store it now.",
        ].join("\n"),
      };
    };
  },
};
