import path from "node:path";
import { fileURLToPath } from "node:url";
import { APP_NODE_FLAGS } from "@shelf/api/host";

/** The benchmark's settings, from its environment (bench/README.md names them). */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SECONDS = Number(process.env.SHELF_BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.SHELF_BENCH_CONNECTIONS ?? 50);
export const WARMUP_SECONDS = Number(process.env.SHELF_BENCH_WARMUP_SECONDS ?? 2);
/** Links in answers (download URLs) are built from this, in the API and the baseline alike. */
export const BASE_URL = "http://bench.test";
/** Where the report goes; CI's smoke run writes elsewhere so the committed figures stay. */
export const OUTPUT = path.resolve(root, process.env.SHELF_BENCH_OUTPUT ?? "bench/results/latest.md");
/** How many times in a row the library pair (baseline, then app) runs for its tail (5; 0 skips the series). */
export const LIBRARY_RUNS = Number(process.env.SHELF_BENCH_LIBRARY_RUNS ?? 5);
/** How many times each light path's pair runs again after the table's run, in alternating order (see lightSeries). */
export const LIGHT_RUNS = Number(process.env.SHELF_BENCH_LIGHT_RUNS ?? 5);
/** The light hot paths' groups: a request costs little, so a run's ratio moves with the machine more than most. */
export const LIGHT_GROUPS = ["license-seated", "client-config"];
/** `cluster`: also the hot paths through HAProxy against one instance directly (bench/proxy.ts). */
export const TARGET = process.env.SHELF_BENCH_TARGET ?? "";
export const CLUSTER_WEB = Number(process.env.SHELF_BENCH_CLUSTER_WEB ?? 1);
/**
 * The app processes' Node flags: those `npm start` gives them (`APP_NODE_FLAGS`), unless SHELF_BENCH_NODE_FLAGS
 * names others (space-separated; empty for Node's defaults) to compare.
 */
export const NODE_FLAGS =
  process.env.SHELF_BENCH_NODE_FLAGS === undefined
    ? [...APP_NODE_FLAGS]
    : process.env.SHELF_BENCH_NODE_FLAGS.split(" ").filter(Boolean);

export const DOWNLOAD_MB = Number(process.env.SHELF_BENCH_DOWNLOAD_MB ?? 512);
export const DOWNLOAD_RUNS = 5;
