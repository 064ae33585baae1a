import { type CollectCommand, parseCommand, USAGE, UsageError } from "./args";
import { collect } from "./collect";
import { folderSink, uploadRunFolder } from "./folder";
import { type RunSink, teeSink } from "./run";
import { ACCOUNTS, DESIGN } from "./targets";
import { CollectionLocked, type RunRecord, uploadSink } from "./upload";

export type Io = { stdout: (text: string) => void; stderr: (text: string) => void };

/**
 * Exit codes: 0 done, 1 bad flags, 2 the run failed (collecting, uploading or its replay), 3 the lock is held, 130
 * interrupted (the run failed on the way out).
 */
export const EXIT = { ok: 0, usage: 1, failed: 2, locked: 3, interrupted: 130 } as const;

/** The reference collect agent's command line; resolves with the exit code. */
export async function run(argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const log = (line: string) => io.stderr(`${line}\n`);
  let command: ReturnType<typeof parseCommand>;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`design:collect: ${error.message} (--help for usage)\n`);
    return EXIT.usage;
  }
  if (command.kind === "help") {
    io.stdout(`${USAGE}\n`);
    return EXIT.ok;
  }
  try {
    if (command.kind === "upload") {
      const submitted = await uploadRunFolder(command.from, { ...command, log, signal });
      return reportSubmitted(submitted, io);
    }
    return await collectCommand(command, io, log, signal);
  } catch (error) {
    if (error instanceof CollectionLocked) {
      io.stderr(`design:collect: ${error.message}\n`);
      return EXIT.locked;
    }
    io.stderr(`design:collect: ${signal?.aborted ? "interrupted: the run was failed" : (error as Error).message}\n`);
    return signal?.aborted ? EXIT.interrupted : EXIT.failed;
  }
}

async function collectCommand(
  command: CollectCommand,
  io: Io,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<number> {
  const sinks: RunSink[] = [];
  if (command.out !== null) {
    sinks.push(
      await folderSink(command.out, {
        target: command.target,
        design_url: command.designUrl,
        signed_in: command.credentials !== null,
      }),
    );
  }
  const upload = command.upload ? uploadSink({ ...command.upload, log }) : null;
  if (upload) sinks.push(upload);
  const apps = [
    ...(command.target && command.apps.includes("accounts") ? [{ spec: ACCOUNTS, origin: command.target }] : []),
    ...(command.designUrl && command.apps.includes("design") ? [{ spec: DESIGN, origin: command.designUrl }] : []),
  ];
  const report = await collect(
    {
      apps,
      viewports: command.viewports,
      langs: command.langs,
      credentials: command.credentials,
      maxPages: command.maxPages,
      log,
      chromiumPath: command.chromiumPath,
      signal,
    },
    sinks.length === 1 ? (sinks[0] as RunSink) : teeSink(sinks),
  );
  const account = report.accounts?.[0];
  if (account && !account.found) log(`the sign-in account was not found: ${account.reason}`);
  if (command.out !== null) io.stdout(`saved the run to ${command.out}\n`);
  return upload?.submitted ? reportSubmitted(upload.submitted, io) : EXIT.ok;
}

function reportSubmitted(run: RunRecord, io: Io): number {
  if (run.status === "failed") {
    io.stderr(`design:collect: run ${run.id} was submitted but its replay failed: ${run.error ?? "no reason given"}\n`);
    return EXIT.failed;
  }
  io.stdout(`submitted run ${run.id}: ${run.status}${run.replay ? ` ${JSON.stringify(run.replay)}` : ""}\n`);
  return EXIT.ok;
}
