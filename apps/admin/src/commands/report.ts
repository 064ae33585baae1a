import { reportAdmin } from "@shelf/api";
import { optionalDate, optionalInteger, optionalString } from "../args";
import type { Command } from "../command";

const DAY_MS = 86_400_000;

export const reportList: Command = {
  name: "report:list",
  summary: "List crash and exception reports, grouped by fingerprint, the busiest first",
  synopsis: "[--since ISO] [--app BUNDLE_ID] [--limit N]",
  details: ["--since defaults to 7 days ago; --limit to 50 groups."],
  options: { since: { type: "string" }, app: { type: "string" }, limit: { type: "string" } },
  prepare(values) {
    const since = optionalDate(values, "since") ?? new Date(Date.now() - 7 * DAY_MS);
    const app = optionalString(values, "app");
    const limit = optionalInteger(values, "limit", { min: 1 }) ?? 50;
    return async ({ db }) => {
      const groups = await reportAdmin.errorGroups(db, { since, app, limit });
      const lines = groups.map(
        (group) =>
          `  ${group.fingerprint}  ${String(group.reports).padStart(5)}×  ${group.error_type.padEnd(9)}  ${group.apps.join(",")} ${group.versions.join(",")}  last ${group.last_seen}\n      ${group.message}`,
      );
      return {
        json: { since: since.toISOString(), groups },
        text: [`${groups.length} group(s) of error reports since ${since.toISOString()}:`, ...lines].join("\n"),
      };
    };
  },
};
