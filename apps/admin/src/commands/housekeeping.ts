import { pruneExpired } from "@shelf/api";
import { optionalInteger } from "../args";
import type { Command } from "../command";

export const housekeeping: Command = {
  name: "housekeeping",
  summary: "Remove codes, tokens and sessions that expired or ended a while ago",
  synopsis: "[--keep-days N]",
  details: [
    "Removes OAuth codes and tokens, MCP sessions, web sessions and device sign-ins that have been expired, revoked",
    "or ended for more than --keep-days (default 7; until then a replayed code or refresh token is still recognised",
    "and revokes what it should). Connected apps (grants) and registered clients are kept. Safe to run at any time,",
    "from any instance. The web app runs the same pass every SHELF_HOUSEKEEPING_INTERVAL_MINUTES (default 60).",
  ],
  options: { "keep-days": { type: "string" } },
  prepare(values) {
    const keepDays = optionalInteger(values, "keep-days", { min: 1 }) ?? 7;
    return async ({ db }) => {
      const pruned = await pruneExpired(db, { keepDays });
      const total = Object.values(pruned).reduce((sum, count) => sum + count, 0);
      return {
        json: { keep_days: keepDays, removed: pruned },
        text:
          total === 0
            ? `Nothing had been dead for more than ${keepDays} days.`
            : `Removed ${Object.entries(pruned)
                .filter(([, count]) => count > 0)
                .map(([table, count]) => `${count} ${table.replace(/_/g, " ")}`)
                .join(", ")} (dead for more than ${keepDays} days).`,
      };
    };
  },
};
