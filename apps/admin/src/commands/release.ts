import { productAdmin } from "@shelf/api";
import { requiredInteger } from "../args";
import type { Command } from "../command";

export const releaseYank: Command = {
  name: "release:yank",
  summary: "Withdraw a release (hidden from update checks, plans, feeds and lists; kept for the record)",
  synopsis: "--id ID",
  options: { id: { type: "string" } },
  prepare(values) {
    const id = requiredInteger(values, "id", { min: 1 });
    return async ({ db }) => {
      const release = await productAdmin.yankRelease(db, id);
      return {
        json: release,
        text: `Yanked release ${release.id} (${release.version}, ${release.channel}) of product ${release.product_id} at ${release.yanked_at}.`,
      };
    };
  },
};
