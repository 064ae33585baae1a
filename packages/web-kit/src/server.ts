import path from "node:path";
import { fileURLToPath } from "node:url";
import { failStart, type HostApp, type HostConfig, startHost } from "@shelf/api/host";
import next from "next";

/**
 * An app's process (its server.ts): the shared start-up (`@shelf/api/host`: database, pool, limits, logs, metrics,
 * the edge server and its operator's endpoints, pages, shutdown) with Next for the app's folder and its messages (the
 * outage page's words); the app gives the rest. A failed start ends the process with its one line.
 */
export function startNextApp<Config extends HostConfig, Prepared = undefined>(
  /** The app's server.ts (`import.meta.url`): its folder is the app's. */
  serverUrl: string,
  /** Reads the app's settings once the process runs (a setting it cannot read is a failed start too). */
  readConfig: () => Config,
  /** The app's own part, made from its settings. */
  app: (config: Config) => Omit<HostApp<Prepared>, "config" | "pages" | "messagesDir">,
): void {
  const dir = path.dirname(fileURLToPath(serverUrl));
  const start = async () => {
    const config = readConfig();
    return startHost({
      ...app(config),
      config,
      pages: ({ dev }) => next({ dev, dir }),
      messagesDir: path.join(dir, "messages"),
    });
  };
  start().catch(failStart);
}
