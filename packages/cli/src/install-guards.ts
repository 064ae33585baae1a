import { rmSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { onCancel } from "./cancel";
import type { Context } from "./context";
import { sha256Of } from "./download";
import { CliError, ExitCode } from "./errors";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user holds the pid, so it is alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Holds `<downloads>.lock` while one product installs: a second shelf installing the same product refuses at once
 * instead of writing the same partial file. A lock left by a process that died (killed, power cut) is taken over.
 * Returns the release.
 */
export async function lockInstall(downloads: string, name: string): Promise<() => Promise<void>> {
  const lock = `${downloads}.lock`;
  await fs.mkdir(path.dirname(lock), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
      const holder = Number(await fs.readFile(lock, "utf8").catch(() => ""));
      if (holder > 0 && alive(holder)) {
        throw new CliError(
          `Another shelf (process ${holder}) is installing ${name} on this machine right now.`,
          ExitCode.failed,
          "install_in_progress",
          "Wait for it to finish, then run the command again if it is still needed.",
          { pid: holder },
        );
      }
      await fs.rm(lock, { force: true });
    }
  }
  const forget = onCancel(() => rmSync(lock, { force: true }));
  return async () => {
    forget();
    await fs.rm(lock, { force: true });
  };
}

/** `--dir` must be a folder shelf can write to: checked before anything is downloaded (exit 2 otherwise). */
export async function checkInstallDir(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true });
    const probe = path.join(dir, `.shelf-probe-${process.pid}`);
    await fs.writeFile(probe, "");
    await fs.rm(probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EEXIST" || code === "ENOTDIR"
        ? "it is a file, not a folder"
        : code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "shelf may not write there"
          : (error as Error).message;
    throw new CliError(
      `--dir ${dir} cannot take the install: ${why}.`,
      ExitCode.usage,
      "usage",
      "Name a folder you can write to.",
    );
  }
}

/** The download of the installed version, still whole on disk: installing it again needs no new download. */
export async function keptDownload(file: string | undefined, sha256: string): Promise<string | null> {
  if (!file) return null;
  const whole = await sha256Of(file).catch(() => null);
  return whole === sha256 ? file : null;
}

/** Deletes every earlier download of the product beside `kept`: only the installed version's file stays. */
export async function pruneDownloads(downloads: string, kept: string): Promise<void> {
  const entries = await fs.readdir(downloads).catch(() => [] as string[]);
  for (const entry of entries) {
    const file = path.join(downloads, entry);
    if (file !== kept) await fs.rm(file, { recursive: true, force: true });
  }
}

/** Says how to run a binary put in a folder that is not on PATH (the shell would not find it by its name). */
export function pathHint(context: Context, folder: string): string | null {
  const onPath = (context.env.PATH ?? "")
    .split(path.delimiter)
    .some((entry) => entry && path.resolve(entry) === folder);
  if (onPath) return null;
  return `${folder} is not on your PATH, so your shell will not find it by name: add it (for example export PATH="${folder}:$PATH" in ~/.bashrc or ~/.zshrc).`;
}
