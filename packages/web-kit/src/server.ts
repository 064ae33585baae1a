import path from "node:path";
import { fileURLToPath } from "node:url";
import { failStart, type HostApp, startHost } from "@shelf/api/host";
import next from "next";

/**
 * An app's process (its server.ts): the shared start-up (`@shelf/api/host`: database, pool, limits, logs, metrics,
 * the edge server and its operator's endpoints, pages, shutdown) with Next for the app's folder and its messages (the
 * outage page's words); the app gives the rest. A failed start ends the process with its one line.
 */
export function startNextApp<Prepared = undefined>(
  /** The app's server.ts (`import.meta.url`): its folder is the app's. */
  serverUrl: string,
  /** The app's own part, made once the process runs (a setting it cannot read is a failed start too). */
  app: () => Omit<HostApp<Prepared>, "pages" | "messagesDir">,
): void {
  const dir = path.dirname(fileURLToPath(serverUrl));
  const start = async () =>
    startHost({ ...app(), pages: ({ dev }) => next({ dev, dir }), messagesDir: path.join(dir, "messages") });
  start().catch(failStart);
}
