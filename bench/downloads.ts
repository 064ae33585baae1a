import { execFileSync } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { loadDeliveryFiles, publishing, readApiEnv } from "@shelf/api";
import { createDb } from "@shelf/db";
import type { BenchData } from "./data";
import { startProcess } from "./harness";
import { BASE_URL, DOWNLOAD_MB, DOWNLOAD_RUNS, root } from "./settings";

export type DownloadResult = {
  sizeMb: number;
  runs: number;
  app: { runs: number[]; median: number };
  baseline: { runs: number[]; median: number };
  rssBefore: number;
  rssAfter: number;
};

/** A release with a real file of DOWNLOAD_MB random bytes, published as the operator CLI publishes one. */
export async function publishDownload(url: string, dataDir: string, data: BenchData) {
  const file = path.join(dataDir, `download-${DOWNLOAD_MB}mb.bin`);
  const out = await fs.open(file, "w");
  const chunk = Buffer.alloc(8 * 1024 * 1024);
  for (let written = 0; written < DOWNLOAD_MB * 1024 * 1024; written += chunk.length) {
    randomFillSync(chunk);
    await out.write(chunk, 0, Math.min(chunk.length, DOWNLOAD_MB * 1024 * 1024 - written));
  }
  await out.close();
  const handle = createDb(url, { max: 2 });
  const files = await loadDeliveryFiles(readApiEnv({} as NodeJS.ProcessEnv), dataDir);
  const release = await publishing.publishRelease(
    handle.db,
    files,
    { productId: data.downloadProductId, version: "9.0.0", filename: "download.bin" },
    createReadStream(file),
  );
  await handle.close();
  return { file, release };
}

/** MB/s of one download with curl, an independent client, to /dev/null. */
function curlSpeed(url: string, headers: string[] = []): number {
  const output = execFileSync("curl", ["-sS", "-f", "-o", "/dev/null", "-w", "%{speed_download}", ...headers, url]);
  return Number(output.toString()) / 1e6;
}

/** The signed download route against a bare server sending the same file, runs interleaved, and the app's memory. */
export async function measureDownloads(
  appPort: number,
  appPid: number,
  download: Awaited<ReturnType<typeof publishDownload>>,
  data: BenchData,
  env: Record<string, string>,
): Promise<DownloadResult> {
  const bare = await startProcess(
    ["--import", "tsx", "bench/baseline-file-server.ts"],
    root,
    { ...env, SHELF_BENCH_FILE: download.file },
    /file baseline listening on (\d+)/,
  );
  try {
    const plan = await fetch(`http://127.0.0.1:${appPort}/api/products/${data.downloadProductId}/install`, {
      headers: { authorization: `Bearer ${data.keys.p50}` },
    });
    const signed = (await plan.json()).data.download_url.replace(BASE_URL, `http://127.0.0.1:${appPort}`);
    const app: number[] = [];
    const baseline: number[] = [];
    const rssBefore = peakRss(appPid);
    for (let run = 0; run < DOWNLOAD_RUNS; run++) {
      baseline.push(curlSpeed(`http://127.0.0.1:${bare.port}/file`));
      app.push(curlSpeed(signed));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    return {
      sizeMb: DOWNLOAD_MB,
      runs: DOWNLOAD_RUNS,
      app: { runs: app, median: median(app) },
      baseline: { runs: baseline, median: median(baseline) },
      rssBefore,
      rssAfter: peakRss(appPid),
    };
  } finally {
    if (bare.child.pid) process.kill(-bare.child.pid, "SIGTERM");
  }
}

export function currentRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
