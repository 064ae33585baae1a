import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startCluster } from "../deploy/cluster";

/**
 * `npm run cluster -- --web 3 --design 2`: the apps as several instances behind HAProxy on this machine, on one
 * PostgreSQL (DATABASE_URL, else an embedded one), one Redis (REDIS_URL, else a redis-server of its own) and one
 * S3-compatible server (SHELF_S3_BUCKET and its settings, else s3rver), with secrets and signing keys made once in the
 * data folder. Ctrl-C or SIGTERM stops every process it started; if it is killed (SIGKILL included), its guard
 * process (deploy/guard.ts) stops them.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function count(value: string | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > 32) {
    console.error(`error: --${name} takes a whole number from ${min} to 32, not "${value}".`);
    process.exit(2);
  }
  return parsed;
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      web: { type: "string" },
      design: { type: "string" },
      port: { type: "string" },
      "design-port": { type: "string" },
      data: { type: "string" },
    },
  }).values;
}
try {
  args = parse();
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  console.error("usage: npm run cluster -- [--web 3] [--design 2] [--port 8080] [--design-port 8081] [--data DIR]");
  process.exit(2);
}

function port(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65535) {
    console.error(`error: --${name} takes a port number (0: a free one), not "${value}".`);
    process.exit(2);
  }
  return parsed;
}

const web = count(args.web, "web", 3, 1);
const design = count(args.design, "design", 2, 1);
const webPort = port(args.port, "port", 8080);
const designPort = port(args["design-port"], "design-port", 8081);
const dataDir = path.resolve(root, args.data ?? process.env.SHELF_CLUSTER_DATA_DIR ?? ".data/cluster");

let stopping = false;
let stop: (() => Promise<void>) | undefined;
const onSignal = async () => {
  if (stopping) return;
  stopping = true;
  // While starting, the start itself stops what it started once it returns (below).
  if (!stop) return console.log("Stopping the cluster once what is starting has started...");
  console.log("Stopping the cluster...");
  await stop();
  process.exit(0);
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

try {
  const cluster = await startCluster({
    web,
    design,
    dataDir,
    databaseUrl: process.env.DATABASE_URL || undefined,
    redisUrl: process.env.REDIS_URL || undefined,
    webPort,
    designPort,
    env: { SHELF_DEMO: process.env.SHELF_DEMO ?? "true" },
    say: (line) => console.log(line),
    logFiles: true,
  });
  if (stopping) {
    await cluster.stop();
    process.exit(0);
  }
  stop = cluster.stop;
  console.log(`Logs: ${path.join(dataDir, "logs")}`);
  for (const instance of cluster.instances) console.log(`  ${instance.name.padEnd(9)} ${instance.url}`);
  // The first web instance's lines (the demo's key and sign-in), with the proxy's address for its own.
  const first = cluster.instances.find((instance) => instance.app === "web");
  for (const line of first?.lines() ?? []) {
    if (!/ is running at /.test(line)) console.log(line.replaceAll(`http://localhost:${first?.port}`, cluster.webUrl));
  }
  console.log(`Shelf (${web} web instances) is running at ${cluster.webUrl}`);
  console.log(`The design host (${design} instances) is running at ${cluster.designUrl}`);
  console.log("Ctrl-C stops everything.");
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}
