import path from "node:path";
import { fileURLToPath } from "node:url";
import { launchApps } from "@shelf/api/host";
import { readDesignConfig } from "@shelf/design/env";
import { readWebConfig } from "@shelf/web/env";

/**
 * `npm start` (`npm run dev` with --dev): both apps on one database. The embedded PostgreSQL can have one owner, so
 * this process resolves the database and hands both apps its URL; see `launchApps` in packages/api/src/host/launch.ts.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

await launchApps({
  dev: process.argv.includes("--dev"),
  apps: [
    {
      label: "the web app",
      dir: path.join(root, "apps/web"),
      portSetting: "PORT",
      readSettings: () => {
        const config = readWebConfig();
        return { db: config.db, port: config.settings.PORT };
      },
    },
    {
      label: "the design app",
      dir: path.join(root, "apps/design"),
      portSetting: "DESIGN_PORT",
      readSettings: () => {
        const config = readDesignConfig();
        return { db: config.db, port: config.settings.DESIGN_PORT };
      },
    },
  ],
});
