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

type Progress = ReturnType<typeof progressReporter>;

/**
 * How many more tries a download gets: pauses that grow after each failure (reset by an attempt that brought bytes),
 * and a few waits as long as the server's Retry-After asks, within a bound.
 */
class Attempts {
  private failures = 0;
  private rateLimitWaits = 0;
  constructor(private readonly progress: Progress) {}

  async waitOutRateLimit(response: Response): Promise<void> {
    const seconds = retryAfterSeconds(response.headers.get("retry-after")) ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS;
    if (this.rateLimitWaits >= MAX_RATE_LIMIT_WAITS || seconds > MAX_RATE_LIMIT_WAIT_SECONDS) {
      this.progress.fail("Download refused.");
      throw new CliError(
        `The download server is rate limiting this client and asks to wait ${seconds} s.`,
        ExitCode.failed,
        "rate_limited",
        `Run the command again in ${seconds} s: it resumes from what was downloaded.`,
        { retry_after_seconds: seconds },
      );
    }
    this.rateLimitWaits++;
    this.progress.note(
      `The download server is rate limiting this client: waiting ${seconds} s as it asks (Retry-After).`,
    );
    await sleep(seconds * 1000);
  }

  async retryOrGiveUp(reason: string): Promise<void> {
    if (this.failures >= RETRY_PAUSES_MS.length) {
      this.progress.fail("Download failed.");
      throw new CliError(
        `The download kept failing (${reason}).`,
        ExitCode.unreachable,
        "download_failed",
        "Run the command again later: it resumes from what was downloaded.",
      );
    }
    const pause = RETRY_PAUSES_MS[this.failures++] as number;
    this.progress.note(`The download was interrupted (${reason}); resuming in ${pause / 1000} s.`);
    await sleep(pause);
  }

  /** An attempt that brought bytes earns the next one the whole budget again: only a stalled download gives up. */
  madeProgress(): void {
    this.failures = 0;
  }
}

/** Where a download is kept while it comes: `<file>.partial`, and beside it which file it is of (`.partial.json`). */
type Partial = { file: string; info: string };

/** Deletes a download that is not the published file, and says so (exit 8 follows). */
async function discard(partial: Partial, progress: Progress): Promise<void> {
  await fs.rm(partial.file, { force: true });
  await fs.rm(partial.info, { force: true });
  progress.fail("The downloaded file does not match.");
}

/** On Ctrl-C, says how much was downloaded and kept for the next run (inside the signal handler: synchronous). */
function sayKeptOnCancel(partial: Partial, total: number): () => void {
  return onCancel(() => {
    let size = 0;
    try {
      size = statSync(partial.file).size;
    } catch {
      // Nothing written yet.
    }
    const kept = size > 0 ? `${formatBytes(size)} of ${formatBytes(total)} downloaded, kept in ${partial.file}` : null;
    process.stderr.write(`${kept ? `${kept}: run the command again to resume.` : "Nothing was downloaded yet."}\n`);
  });
}

/**
 * Writes an answer's body into the partial file from `before` bytes, the silence watched between chunks. Returns how
 * far it got and, when the connection was cut, why; a body longer than the plan's file is deleted (exit 8).
 */
async function writeBody(
  body: ReadableStream<Uint8Array>,
  {
    partial,
    plan,
    append,
    before,
    silence,
    progress,
  }: {
    partial: Partial;
    plan: Plan;
    append: boolean;
    before: number;
    silence: Silence;
    progress: Progress;
  },
): Promise<{ written: number; cut: string | null }> {
  const handle = await fs.open(partial.file, append ? "a" : "w", 0o600);
  let written = before;
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      silence.heard();
      if (written + chunk.length > plan.size) {
        await body.cancel().catch(() => {});
        await discard(partial, progress);
        throw new CliError(
          `The download is longer than the ${formatBytes(plan.size)} (${plan.size} bytes) the service published (at least ${written + chunk.length} bytes): it was deleted and nothing was installed.`,
          ExitCode.verificationFailed,
          "size_mismatch",
          "Run the command again; if it happens again, the file is being altered on the way: report it with `shelf report problem`.",
          { expected_size: plan.size, received_at_least: written + chunk.length },
        );
      }
      await handle.write(chunk);
      written += chunk.length;
      progress.update(written);
    }
    return { written, cut: null };
  } catch (error) {
    if (error instanceof CliError) throw error;
    return { written, cut: silence.fired ? silence.reason : (error as Error).message };
  } finally {
    await handle.close();
  }
}

/** The whole file, checked against the plan's sha256: moved to `<dir>/<filename>`, or deleted (exit 8). */
async function placeVerified(partial: Partial, dir: string, plan: Plan, progress: Progress): Promise<string> {
  const actual = await sha256Of(partial.file);
  if (actual !== plan.sha256) {
    await discard(partial, progress);
    throw new CliError(
      `The downloaded file's sha256 (${actual}) is not the one the service published (${plan.sha256}): it was deleted and nothing was installed.`,
      ExitCode.verificationFailed,
      "checksum_mismatch",
      "Run the command again; if it happens again, the file is being altered on the way: report it with `shelf report problem`.",
      { expected_sha256: plan.sha256, actual_sha256: actual },
    );
  }
  const file = path.join(dir, plan.filename);
  await fs.rename(partial.file, file);
  await fs.rm(partial.info, { force: true });
  return file;
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
  const partialFile = path.join(dir, `${plan.filename}.partial`);
  const partial: Partial = { file: partialFile, info: `${partialFile}.json` };
  // A partial file of another file (another version, a re-published build) is worthless: start over.
  const previous = await readJson<{ sha256?: string } | null>(partial.info, null);
  if (previous?.sha256 !== plan.sha256 || (await fileSize(partial.file)) > plan.size) {
    await fs.rm(partial.file, { force: true });
  }
  await writeJson(partial.info, { sha256: plan.sha256, size: plan.size });
  const resumed = (await fileSize(partial.file)) > 0;
  let renewed = 0;
  const progress = progressReporter(context, `Downloading ${plan.name} ${plan.version}`, plan.size);
  if (resumed) progress.note(`Resuming the download from ${formatBytes(await fileSize(partial.file))}.`);
  const attempts = new Attempts(progress);
  const stopSaying = sayKeptOnCancel(partial, plan.size);

  try {
    for (;;) {
      const offset = await fileSize(partial.file);
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
        await attempts.retryOrGiveUp(silence.fired ? silence.reason : networkReason(error));
        continue;
      }
      silence.heard();
      try {
        if (response.status === 429) {
          await response.body?.cancel();
          silence.end();
          await attempts.waitOutRateLimit(response);
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
              await fs.rm(partial.file, { force: true });
              await writeJson(partial.info, { sha256: fresh.sha256, size: fresh.size });
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
          await fs.rm(partial.file, { force: true });
          await attempts.retryOrGiveUp("the service refused to resume");
          continue;
        }
        if (!response.ok || !response.body) {
          const body = await response.json().catch(() => ({}));
          if (response.status >= 500) {
            await attempts.retryOrGiveUp(`the service answered ${response.status}`);
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
            await fs.rm(partial.file, { force: true });
            await attempts.retryOrGiveUp("the service sent another part of the file than the one asked for");
            continue;
          }
        } else if (offset > 0) {
          progress.note("The server sent the whole file instead of the rest: starting over.");
        }
        const before = append ? offset : 0;
        const { written, cut } = await writeBody(response.body, { partial, plan, append, before, silence, progress });
        if (written > before) attempts.madeProgress();
        if (cut) await attempts.retryOrGiveUp(cut);
        else if (written < plan.size)
          await attempts.retryOrGiveUp(`the connection closed after ${formatBytes(written)}`);
      } finally {
        silence.end();
      }
    }
  } finally {
    stopSaying();
  }

  const file = await placeVerified(partial, dir, plan, progress);
  progress.done(`Downloaded ${plan.name} ${plan.version} (${formatBytes(plan.size)}, sha256 verified).`);
  return { file, resumed, renewed, plan };
}
