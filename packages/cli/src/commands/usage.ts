import path from "node:path";
import { UsageData } from "@shelf/api/schemas";
import type { z } from "zod";
import type { Context } from "../context";
import { CliError, ExitCode } from "../errors";
import type { UsageConsentOutput, UsagePushOutput } from "../output";
import { readJson, writeJson } from "../paths";
import { serviceCache } from "../trust";

/** Launches counted on this machine and not pushed yet: product id, then day (YYYY-MM-DD), then count. */
type PendingUsage = Record<string, Record<string, { launches: number; commands: Record<string, number> }>>;

const pendingFile = (context: Context) => path.join(serviceCache(context), "usage.json");

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Counts one launch of a product (and the command, when named) for today, on this machine only, and only after the
 * person agreed: without consent nothing is counted at all.
 */
export async function countLaunch(context: Context, productId: number, command?: string): Promise<boolean> {
  if (context.config.usage_consent !== true) return false;
  const file = pendingFile(context);
  const pending = await readJson<PendingUsage>(file, {});
  const days = pending[String(productId)] ?? {};
  pending[String(productId)] = days;
  const day = days[today()] ?? { launches: 0, commands: {} };
  days[today()] = day;
  day.launches++;
  if (command) day.commands[command] = (day.commands[command] ?? 0) + 1;
  await writeJson(file, pending);
  return true;
}

export async function usageConsent(context: Context, choice: string): Promise<z.infer<typeof UsageConsentOutput>> {
  if (choice !== "on" && choice !== "off") {
    throw new CliError(`Say "on" or "off" (got "${choice}").`, ExitCode.usage, "usage");
  }
  const consent = choice === "on";
  await context.saveConfig((config) => {
    config.usage_consent = consent;
  });
  let discarded = 0;
  if (!consent) {
    // Withdrawn consent: what was counted and not sent is deleted, not kept for later.
    const pending = await readJson<PendingUsage>(pendingFile(context), {});
    discarded = Object.values(pending).reduce((sum, days) => sum + Object.keys(days).length, 0);
    await writeJson(pendingFile(context), {});
  }
  context.print(
    consent
      ? "Usage sharing is on: launches are counted on this machine and sent with `shelf usage push`."
      : `Usage sharing is off: nothing is counted or sent${discarded ? `, and ${discarded} unsent day(s) were deleted` : ""}.`,
  );
  return { consent, discarded_days: discarded };
}

export async function usagePush(context: Context): Promise<z.infer<typeof UsagePushOutput>> {
  if (context.config.usage_consent !== true) {
    throw new CliError(
      "Usage is sent only after you agree to share it.",
      ExitCode.usage,
      "consent_required",
      "Run `shelf usage consent on` first (and `shelf usage consent off` to stop).",
    );
  }
  const pending = await readJson<PendingUsage>(pendingFile(context), {});
  const days = Object.entries(pending).flatMap(([productId, byDay]) =>
    Object.entries(byDay).map(([usage_date, counted]) => ({
      product_id: Number(productId),
      usage_date,
      launches: counted.launches,
      commands: Object.keys(counted.commands).length ? counted.commands : null,
    })),
  );
  if (days.length === 0) {
    context.print("Nothing to send: no launches were counted since the last push.");
    return { sent_days: 0, stored: 0 };
  }
  const api = await context.api();
  let stored = 0;
  // At most 200 days per upload (contract section 8).
  for (let start = 0; start < days.length; start += 200) {
    const batch = days.slice(start, start + 200);
    const answer = await api.post("/api/device/usage", UsageData, {
      body: { consent: true, days: batch },
      retrySafe: true,
    });
    stored += answer.stored;
    // Sent days leave the pending file at once: a later failure never sends them twice (the upload overwrites anyway).
    const left = await readJson<PendingUsage>(pendingFile(context), {});
    for (const day of batch) delete left[String(day.product_id)]?.[day.usage_date];
    for (const [productId, byDay] of Object.entries(left)) if (Object.keys(byDay).length === 0) delete left[productId];
    await writeJson(pendingFile(context), left);
  }
  context.print(`Sent usage for ${days.length} product-day(s).`);
  return { sent_days: days.length, stored };
}
