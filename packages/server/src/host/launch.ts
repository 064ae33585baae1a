import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import { type DbEnv, resolveDatabase, SetupError } from "@shelf/db/server";
import { failStart } from "./build";

/** Set by the root launcher on the apps it starts: they report to it (an IPC message) instead of printing. */
const LAUNCHER_SETTING = "SHELF_LAUNCHER";

/**
 * Node flags of every app process `npm start` runs (the apps' own `start` scripts and the benchmark give the same):
 * a larger young generation. A request's garbage (rows, JSON, the answer) then dies young instead of being
 * promoted into an old generation that Next.js, in the same process, keeps large; see README's benchmark.
 */
export const APP_NODE_FLAGS = ["--max-semi-space-size=64"] as const;

/** What an app tells the launcher once it listens: the lines for the person at the terminal. */
export type ReadyMessage = { type: "ready"; lines: string[] };

/** Whether this process was started by the root launcher (which then speaks for it at the terminal). */
export function isLaunched(): boolean {
  return process.env[LAUNCHER_SETTING] === "ipc" && typeof process.send === "function";
}

export type LaunchedApp = {
  /** How the terminal names it in a failure: "the web app". */
  label: string;
  /** The app's folder: `start.ts` (production) or `server.ts` (development) runs there. */
  dir: string;
  /** The setting naming its port. */
  portSetting: string;
  /** Reads and checks every setting of the app, as its own start does: its database and its port (0: a free one). */
  readSettings: () => { db: DbEnv; port: number };
};

const capitalized = (label: string) => label.charAt(0).toUpperCase() + label.slice(1);

const isReady = (message: unknown): message is ReadyMessage =>
  typeof message === "object" && message !== null && (message as { type?: unknown }).type === "ready";

/** The exit code a process ended with, a signal counted as the shell counts it (128 + its number). */
function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0);
}

/**
 * The root `npm start` (and `npm run dev`): every app's settings checked first, the database resolved once (the
 * embedded PostgreSQL can have one owner: this process, which supervises it) and handed to each app as DATABASE_URL,
 * the apps started one after another (each builds itself if its sources changed, and data-folder secrets are made by
 * the first), their lines printed as each is ready. SIGINT and SIGTERM are passed on to the apps; when one app stops
 * by itself the others are stopped too; once all have stopped the database is, and the process exits with the first
 * app's failure code, else 0.
 */
export async function launchApps(options: { apps: LaunchedApp[]; dev: boolean }): Promise<never> {
  let dbEnv: DbEnv;
  try {
    const settings = options.apps.map((app) => app.readSettings());
    for (const [index, { port }] of settings.entries()) {
      const other = settings.findIndex((candidate) => candidate.port === port);
      if (port !== 0 && other !== index) {
        const names = [options.apps[other]?.portSetting, options.apps[index]?.portSetting];
        throw new SetupError(`${names.join(" and ")} are both ${port}: give each app its own port.`);
      }
    }
    dbEnv = (settings[0] as { db: DbEnv }).db;
  } catch (error) {
    failStart(error);
  }

  const children: ChildProcess[] = [];
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  // Ctrl-C reaches every process of the group at once; a process manager's SIGTERM reaches this one alone.
  process.on("SIGINT", () => stopAll("SIGINT"));
  process.on("SIGTERM", () => stopAll("SIGTERM"));

  let database: Awaited<ReturnType<typeof resolveDatabase>>;
  try {
    database = await resolveDatabase(dbEnv, {
      onEvent: (event) =>
        console.error(
          event.type === "exited"
            ? `The embedded PostgreSQL exited unexpectedly (${event.reason}); restarting it.`
            : `The embedded PostgreSQL runs again (after ${event.attempts} attempts).`,
        ),
      stopping: () => stopping,
    });
  } catch (error) {
    failStart(error);
  }
  console.log(
    `Database: ${database.embedded ? `embedded PostgreSQL on port ${database.embedded.port}` : "DATABASE_URL"}`,
  );

  const exits: Promise<number>[] = [];
  for (const app of options.apps) {
    if (stopping) break;
    const child = spawn(
      process.execPath,
      [...APP_NODE_FLAGS, "--import", "tsx", options.dev ? "server.ts" : "start.ts"],
      {
        cwd: app.dir,
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          NODE_ENV: options.dev ? "development" : "production",
          [LAUNCHER_SETTING]: "ipc",
        },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    children.push(child);
    const exited = new Promise<number>((resolve) => {
      child.once("exit", (code, signal) => resolve(exitCodeOf(code, signal)));
      // A child that could not be started at all has no exit to wait for.
      child.once("error", (error) => {
        console.error(`${capitalized(app.label)} could not be started: ${error.message}`);
        resolve(1);
      });
    });
    exits.push(
      exited.then((code) => {
        if (!stopping) {
          console.error(`${capitalized(app.label)} stopped (exit code ${code}): stopping the others.`);
          stopAll("SIGTERM");
        }
        return code;
      }),
    );
    const ready = await Promise.race([
      new Promise<ReadyMessage>((resolve) =>
        child.on("message", (message) => {
          if (isReady(message)) resolve(message);
        }),
      ),
      exited.then(() => null),
    ]);
    if (ready) for (const line of ready.lines) console.log(line);
  }

  const codes = await Promise.all(exits);
  await database.stop();
  process.exit(codes.find((code) => code !== 0) ?? 0);
}
