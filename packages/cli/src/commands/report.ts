import os from "node:os";
import { input } from "@inquirer/prompts";
import { ErrorReportData, SupportReportData } from "@shelf/api/schemas";
import type { z } from "zod";
import type { Context } from "../context";
import { CliError, ExitCode } from "../errors";
import { readInstalls } from "../installs";
import type { CrashReportsOutput, ReportOutput } from "../output";
import { CLIENT_VERSION } from "../version";
import { deviceId } from "./license";

type ReportOptions = { summary?: string; detail?: string; diagnostics?: boolean };

/** What a diagnostic bundle holds: the client, the machine and what shelf installed; never a key. */
async function diagnostics(context: Context) {
  const key = await context.key();
  return {
    client_version: CLIENT_VERSION,
    node: process.versions.node,
    platform: process.platform,
    arch: process.arch,
    os_release: os.release(),
    base_url: context.baseUrl,
    key_source: key?.source ?? null,
    installs: await readInstalls(context.dirs),
  };
}

/** Asks on a terminal for what the command line left out; elsewhere a missing value is a usage error. */
async function ask(context: Context, value: string | undefined, option: string, message: string): Promise<string> {
  if (value?.trim()) return value.trim();
  if (!process.stdin.isTTY || !context.interactive || context.json) {
    throw new CliError(`${option} is required when shelf cannot ask (not a terminal).`, ExitCode.usage, "usage");
  }
  return (await input({ message, required: true })).trim();
}

export async function reportProblem(context: Context, options: ReportOptions): Promise<z.infer<typeof ReportOutput>> {
  const summary = await ask(context, options.summary, "--summary", "What went wrong, in one line?");
  const detail = await ask(context, options.detail, "--detail", "What did you do, and what happened?");
  const fields = {
    kind: "app_report",
    summary,
    detail,
    app_bundle_id: "shelf-cli",
    app_version: CLIENT_VERSION,
    device_id: await deviceId(context),
  };
  const api = await context.api();
  let answer: z.infer<typeof SupportReportData>;
  if (options.diagnostics) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    const bundle = JSON.stringify(await diagnostics(context), null, 2);
    form.set("bundle", new Blob([bundle], { type: "application/json" }), "shelf-diagnostics.json");
    answer = await api.post("/api/support/reports", SupportReportData, { form });
  } else {
    answer = await api.post("/api/support/reports", SupportReportData, { body: fields });
  }
  context.print(
    answer.deduplicated
      ? `Added to the open ticket #${answer.ticket.id} about the same problem (${answer.ticket.report_count} reports).`
      : `Reported: ticket #${answer.ticket.id}. Support answers by email.`,
  );
  return {
    ticket_id: answer.ticket.id,
    deduplicated: answer.deduplicated,
    report_count: answer.ticket.report_count,
    diagnostics_attached: options.diagnostics === true,
  };
}

export async function crashReports(context: Context, choice: string): Promise<z.infer<typeof CrashReportsOutput>> {
  if (choice !== "on" && choice !== "off") {
    throw new CliError(`Say "on" or "off" (got "${choice}").`, ExitCode.usage, "usage");
  }
  await context.saveConfig((config) => {
    config.crash_reports = choice === "on";
  });
  context.print(
    choice === "on"
      ? "When shelf itself fails unexpectedly, it sends the error and its stack to the service (never your key)."
      : "shelf sends no crash reports.",
  );
  return { crash_reports: choice === "on" };
}

/**
 * Sends an unexpected failure of the client itself (`POST /api/error-reports`, no key), only when the person opted
 * in; waits at most three seconds and never fails the command further.
 */
export async function sendCrashReport(context: Context, error: unknown): Promise<boolean> {
  if (context.config.crash_reports !== true) return false;
  const failure = error instanceof Error ? error : new Error(String(error));
  const report = context
    .anonymousApi()
    .post("/api/error-reports", ErrorReportData, {
      anonymous: true,
      body: {
        app_bundle_id: "shelf-cli",
        app_version: CLIENT_VERSION,
        os_version: `${process.platform} ${os.release()}`.slice(0, 50),
        device_model: process.arch,
        error_type: "crash",
        error_message: `${failure.name}: ${failure.message}`.slice(0, 10_000) || "unknown",
        stack_trace: failure.stack?.slice(0, 50_000) ?? null,
        context: {
          command: process.argv
            .slice(2, 4)
            .filter((word) => !word.startsWith("-"))
            .join(" "),
        },
      },
    })
    .then(
      () => true,
      () => false,
    );
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000).unref());
  return Promise.race([report, timeout]);
}
