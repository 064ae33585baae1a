import path from "node:path";
import { DownloadPipelineData } from "@shelf/api/schemas";
import type { Context } from "./context";
import { createApiClient } from "./http";
import { readJson, writeJson } from "./paths";
import { olderThan } from "./trust";
import { UPGRADE_COMMAND } from "./version";

/**
 * The service's product that is this client: the product with this slug. Its stable releases are the client's
 * versions; a service without such a product simply gives no hint.
 */
export const CLI_PRODUCT_SLUG = "shelf-cli";
const DAY_MS = 24 * 60 * 60 * 1000;

type HintState = { checked_at?: string; base_url?: string; latest?: string | null };

export const hintStateFile = (context: Pick<Context, "dirs">) => path.join(context.dirs.data, "update-check.json");

/**
 * Starts the daily "newer client available" check beside a command, when a person is looking at a terminal: not
 * with --json, not when stdout or stderr is not a terminal, not in CI, not with SHELF_NO_UPDATE_NOTIFIER, and not when
 * this service was asked less than a day ago. Returns the function that prints the hint once the command is done (it
 * waits SHELF_UPDATE_CHECK_WAIT_MS, 1.5 s, for the answer at most; a slow or missing answer prints nothing). Never
 * fails the command.
 */
export function startUpdateCheck(context: Context, version: string): () => Promise<void> {
  const nothing = async () => {};
  if (context.json || !process.stdout.isTTY || !process.stderr.isTTY) return nothing;
  if (context.env.SHELF_NO_UPDATE_NOTIFIER || context.env.CI) return nothing;
  const file = hintStateFile(context);
  // Quiet and quick: no retries, no waiting out a 429, nothing said about either.
  const api = createApiClient({
    baseUrl: context.baseUrl,
    key: null,
    say: () => {},
    backoffMs: [],
    maxRetryAfterSeconds: 0,
    timeoutMs: context.timeoutMs,
  });
  const check = (async (): Promise<string | null> => {
    const state = await readJson<HintState>(file, {});
    const last = state.checked_at ? Date.parse(state.checked_at) : Number.NaN;
    if (state.base_url === context.baseUrl && Date.now() - last < DAY_MS && Date.now() >= last) return null;
    // The day starts at the attempt: an unreachable service is not asked again on every command.
    await writeJson(file, { checked_at: new Date().toISOString(), base_url: context.baseUrl, latest: null });
    const pipeline = await api.get("/api/downloads/pipeline", DownloadPipelineData, { anonymous: true });
    const stable = pipeline.channels.find((channel) => channel.channel === "stable");
    const latest = stable?.products.find((product) => product.slug === CLI_PRODUCT_SLUG)?.version ?? null;
    await writeJson(file, { checked_at: new Date().toISOString(), base_url: context.baseUrl, latest });
    return latest && olderThan(version, latest) ? latest : null;
  })().catch(() => null);
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const latest = await Promise.race([
      check,
      new Promise<null>((resolve) => {
        // A request still running then is cut short when the command's process exits.
        timer = setTimeout(() => resolve(null), context.env.SHELF_UPDATE_CHECK_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (latest) {
      process.stderr.write(`\nA newer shelf is available: ${version} → ${latest}. Upgrade: ${UPGRADE_COMMAND}\n`);
    }
  };
}
