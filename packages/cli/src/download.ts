import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { ProductInstallData } from "@shelf/api/schemas";
import { onCancel } from "./cancel";
import type { Context } from "./context";
import { apiError, CliError, ExitCode } from "./errors";
import { retryAfterSeconds, sleep, userAgent } from "./http";
import { readJson, writeJson } from "./paths";
import { startSpinner } from "./spinner";

export type Plan = ProductInstallData;

export type Downloaded = { file: string; resumed: boolean; renewed: number; plan: Plan };

const RETRY_PAUSES_MS = [250, 500, 1000, 2000, 4000, 8000];
const MAX_RATE_LIMIT_WAITS = 3;
const MAX_RATE_LIMIT_WAIT_SECONDS = 120;
const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 60;

/**
 * Aborts a download that goes quiet for `ms`: while waiting for the answer, then between two chunks of its body
 * (`heard` starts the wait again). A slow but steady download is never cut.
 */
class Silence {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  constructor(private readonly ms: number) {
    this.timer = setTimeout(() => this.controller.abort(), ms);
  }
  get signal() {
    return this.controller.signal;
  }
  get fired() {
    return this.controller.signal.aborted;
  }
  get reason() {
    return `no data for ${this.ms / 1000} s`;
  }
  heard() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(), this.ms);
  }
  end() {
    clearTimeout(this.timer);
  }
}

const networkReason = (error: unknown) =>
  (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;

export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes} min ${Math.ceil(seconds % 60)} s`
    : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Shows bytes, rate and time left: a live line on a terminal, a plain line every quarter otherwise. */
function progressReporter(context: Context, label: string, total: number) {
  const spinner = context.interactive && !context.json ? startSpinner(label) : null;
  const started = Date.now();
  let startBytes = -1;
  let lastDraw = 0;
  let lastQuarter = -1;
  return {
    update(bytes: number) {
      if (startBytes < 0) startBytes = bytes;
      const now = Date.now();
      const rate = ((bytes - startBytes) / Math.max(1, now - started)) * 1000;
      const left = rate > 0 ? (total - bytes) / rate : Number.POSITIVE_INFINITY;
      const line = `${label}: ${formatBytes(bytes)} of ${formatBytes(total)}, ${formatBytes(rate)}/s, ${formatSeconds(left)} left`;
      if (spinner) {
        if (now - lastDraw > 100 || bytes === total) {
          spinner.text = line;
          lastDraw = now;
        }
        return;
      }
      const quarter = total > 0 ? Math.floor((bytes / total) * 4) : 4;
      if (quarter > lastQuarter) {
        lastQuarter = quarter;
        context.say(
          `${label}: ${Math.floor((bytes / Math.max(total, 1)) * 100)}% (${formatBytes(bytes)} of ${formatBytes(total)})`,
        );
      }
    },
    note(line: string) {
      if (spinner) spinner.info(line).start();
      else context.say(line);
    },
    done(line: string) {
      if (spinner) spinner.succeed(line);
      else context.say(line);
    },
    fail(line: string) {
      if (spinner) spinner.fail(line);
    },
  };
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * Downloads a plan's file through its signed link into `<dir>/<filename>.partial`, resuming with Range after a cut
 * (a 200 instead of a 206 starts over), renewing the link from a new plan when it expired, and moves it to
 * `<dir>/<filename>` only once its sha256 matches the plan. A file that does not match is deleted, never kept.
 */
export async function downloadVerified(
  context: Context,
  dir: string,
  firstPlan: Plan,
  renewPlan: () => Promise<Plan>,
): Promise<Downloaded> {
  let plan = firstPlan;
  await fs.mkdir(dir, { recursive: true });
  const partial = path.join(dir, `${plan.filename}.partial`);
  const partialInfo = `${partial}.json`;
  // A partial file of another file (another version, a re-published build) is worthless: start over.
  const previous = await readJson<{ sha256?: string } | null>(partialInfo, null);
  if (previous?.sha256 !== plan.sha256 || (await fileSize(partial)) > plan.size) await fs.rm(partial, { force: true });
  await writeJson(partialInfo, { sha256: plan.sha256, size: plan.size });
  const resumed = (await fileSize(partial)) > 0;
  let renewed = 0;
  let failures = 0;
  const progress = progressReporter(context, `Downloading ${plan.name} ${plan.version}`, plan.size);
  if (resumed) progress.note(`Resuming the download from ${formatBytes(await fileSize(partial))}.`);

  const keptOnCancel = onCancel(() => {
    // Runs inside the signal handler: a synchronous look at what is on disk.
    let size = 0;
    try {
      size = statSync(partial).size;
    } catch {
      // Nothing written yet.
    }
    const kept = size > 0 ? `${formatBytes(size)} of ${formatBytes(plan.size)} downloaded, kept in ${partial}` : null;
    process.stderr.write(`${kept ? `${kept}: run the command again to resume.` : "Nothing was downloaded yet."}\n`);
  });

  let rateLimitWaits = 0;
  const waitOutRateLimit = async (response: Response) => {
    const seconds = retryAfterSeconds(response.headers.get("retry-after")) ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS;
    if (rateLimitWaits >= MAX_RATE_LIMIT_WAITS || seconds > MAX_RATE_LIMIT_WAIT_SECONDS) {
      progress.fail("Download refused.");
      throw new CliError(
        `The download server is rate limiting this client and asks to wait ${seconds} s.`,
        ExitCode.failed,
        "rate_limited",
        `Run the command again in ${seconds} s: it resumes from what was downloaded.`,
        { retry_after_seconds: seconds },
      );
    }
    rateLimitWaits++;
    progress.note(`The download server is rate limiting this client: waiting ${seconds} s as it asks (Retry-After).`);
    await sleep(seconds * 1000);
  };

  const retryOrGiveUp = async (reason: string) => {
    if (failures >= RETRY_PAUSES_MS.length) {
      progress.fail("Download failed.");
      throw new CliError(
        `The download kept failing (${reason}).`,
        ExitCode.unreachable,
        "download_failed",
        "Run the command again later: it resumes from what was downloaded.",
      );
    }
    const pause = RETRY_PAUSES_MS[failures++] as number;
    progress.note(`The download was interrupted (${reason}); resuming in ${pause / 1000} s.`);
    await sleep(pause);
  };

  /** A file longer than the plan says is not the published file, however often it is fetched: exit 8. */
  const tooLong = async (bytes: number) => {
    await fs.rm(partial, { force: true });
    await fs.rm(partialInfo, { force: true });
    progress.fail("The downloaded file does not match.");
    return new CliError(
      `The download is longer than the ${formatBytes(plan.size)} (${plan.size} bytes) the service published (at least ${bytes} bytes): it was deleted and nothing was installed.`,
      ExitCode.verificationFailed,
      "size_mismatch",
      "Run the command again; if it happens again, the file is being altered on the way: report it with `shelf report problem`.",
      { expected_size: plan.size, received_at_least: bytes },
    );
  };

  try {
    for (;;) {
      const offset = await fileSize(partial);
      if (offset === plan.size) break;
      const headers: Record<string, string> = { "user-agent": userAgent() };
      if (offset > 0) {
        headers.range = `bytes=${offset}-`;
        headers["if-range"] = `"${plan.sha256}"`;
      }
      // The timeout covers the wait for the answer, then each silence between two chunks: not the whole file.
      const silence = new Silence(context.timeoutMs);
      let response: Response;
      try {
        response = await fetch(plan.download_url, { headers, redirect: "follow", signal: silence.signal });
      } catch (error) {
        silence.end();
        await retryOrGiveUp(silence.fired ? silence.reason : networkReason(error));
        continue;
      }
      silence.heard();
      try {
        if (response.status === 429) {
          await response.body?.cancel();
          silence.end();
          await waitOutRateLimit(response);
          continue;
        }
        if (response.status === 403 || response.status === 410) {
          const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
          const expired = body.error === "download_link_expired" || Date.parse(plan.download_expires_at) <= Date.now();
          if (expired && renewed < 3) {
            renewed++;
            progress.note("The download link expired: asking the service for a new one.");
            const fresh = await renewPlan();
            if (fresh.sha256 !== plan.sha256) {
              await fs.rm(partial, { force: true });
              await writeJson(partialInfo, { sha256: fresh.sha256, size: fresh.size });
            }
            plan = fresh;
            continue;
          }
          progress.fail("Download refused.");
          throw apiError(response.status, body);
        }
        if (response.status === 416) {
          // The service cannot resume from here: start over, within the same budget as any other failure.
          await response.body?.cancel();
          await fs.rm(partial, { force: true });
          await retryOrGiveUp("the service refused to resume");
          continue;
        }
        if (!response.ok || !response.body) {
          const body = await response.json().catch(() => ({}));
          if (response.status >= 500) {
            await retryOrGiveUp(`the service answered ${response.status}`);
            continue;
          }
          progress.fail("Download refused.");
          throw apiError(response.status, body);
        }
        let append = false;
        if (response.status === 206) {
          const start = /^bytes (\d+)-/.exec(response.headers.get("content-range") ?? "")?.[1];
          append = Number(start) === offset;
          if (offset > 0 && !append) {
            // A range other than the one asked for: nothing to trust, start over.
            await response.body.cancel();
            await fs.rm(partial, { force: true });
            await retryOrGiveUp("the service sent another part of the file than the one asked for");
            continue;
          }
        } else if (offset > 0) {
          progress.note("The server sent the whole file instead of the rest: starting over.");
        }
        const handle = await fs.open(partial, append ? "a" : "w", 0o600);
        const before = append ? offset : 0;
        let written = before;
        let cut: string | null = null;
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            silence.heard();
            if (written + chunk.length > plan.size) {
              await response.body.cancel().catch(() => {});
              throw await tooLong(written + chunk.length);
            }
            await handle.write(chunk);
            written += chunk.length;
            progress.update(written);
          }
        } catch (error) {
          if (error instanceof CliError) throw error;
          cut = silence.fired ? silence.reason : (error as Error).message;
        } finally {
          await handle.close();
        }
        // An attempt that brought bytes earns the next one the whole budget again: only a download that stopped
        // getting anywhere gives up.
        if (written > before) failures = 0;
        if (cut) await retryOrGiveUp(cut);
        else if (written < plan.size) await retryOrGiveUp(`the connection closed after ${formatBytes(written)}`);
      } finally {
        silence.end();
      }
    }
  } finally {
    keptOnCancel();
  }

  const actual = await sha256Of(partial);
  if (actual !== plan.sha256) {
    await fs.rm(partial, { force: true });
    await fs.rm(partialInfo, { force: true });
    progress.fail("The downloaded file does not match.");
    throw new CliError(
      `The downloaded file's sha256 (${actual}) is not the one the service published (${plan.sha256}): it was deleted and nothing was installed.`,
      ExitCode.verificationFailed,
      "checksum_mismatch",
      "Run the command again; if it happens again, the file is being altered on the way: report it with `shelf report problem`.",
      { expected_sha256: plan.sha256, actual_sha256: actual },
    );
  }
  const file = path.join(dir, plan.filename);
  await fs.rename(partial, file);
  await fs.rm(partialInfo, { force: true });
  progress.done(`Downloaded ${plan.name} ${plan.version} (${formatBytes(plan.size)}, sha256 verified).`);
  return { file, resumed, renewed, plan };
}
