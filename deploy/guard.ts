import { readFileSync, rmSync } from "node:fs";

/**
 * The cluster's guard: a process of its own (its own session, so a Ctrl-C at the terminal does not reach it) that
 * outlives the launcher. The launcher tells it, one line at a time on its stdin, what it starts; when that pipe
 * closes, because the launcher stopped everything and ended it or because the launcher died (even by SIGKILL, when no
 * handler of its own can run), the guard stops whatever is still running, waits, kills what did not stop, and exits.
 *
 *   group <pid> <SIGNAL>      a process group the launcher started (its leader's pid); sent <SIGNAL>, then SIGKILL
 *   ungroup <pid>             that group has exited: forget it (its pid may be reused)
 *   pidfile <path> <SIGNAL>   a process whose pid is the first line of <path> when the pipe closes (the embedded
 *                             PostgreSQL, whose postmaster changes when it is restarted)
 *   remove <path>             a temporary folder to delete at the end
 */

const GRACE_MS = Number(process.env.SHELF_GUARD_GRACE_MS ?? 15_000);

const groups = new Map<number, NodeJS.Signals>();
const pidFiles = new Map<string, NodeJS.Signals>();
const removals = new Set<string>();

function alive(pid: number, group: boolean): boolean {
  try {
    process.kill(group ? -pid : pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else (PostgreSQL run as `postgres` when the launcher is root).
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function send(pid: number, group: boolean, signal: NodeJS.Signals): void {
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Gone meanwhile.
  }
}

function pidIn(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buffered += chunk;
  const lines = buffered.split("\n");
  buffered = lines.pop() ?? "";
  for (const line of lines) {
    const [command, target = "", signal = "SIGTERM"] = line.trim().split(" ");
    if (command === "group") groups.set(Number(target), signal as NodeJS.Signals);
    else if (command === "ungroup") groups.delete(Number(target));
    else if (command === "pidfile") pidFiles.set(target, signal as NodeJS.Signals);
    else if (command === "remove") removals.add(target);
  }
});
process.stdin.on("end", () => void cleanUp());
process.stdin.on("error", () => void cleanUp());
// Signals are the launcher's business (Ctrl-C goes to it, it stops everything, then closes the pipe).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => {});

let cleaning = false;
async function cleanUp(): Promise<void> {
  if (cleaning) return;
  cleaning = true;
  const targets: { pid: number; group: boolean }[] = [];
  for (const [pid, signal] of groups) {
    if (!alive(pid, true)) continue;
    send(pid, true, signal);
    targets.push({ pid, group: true });
  }
  for (const [file, signal] of pidFiles) {
    const pid = pidIn(file);
    if (pid === undefined || !alive(pid, false)) continue;
    send(pid, false, signal);
    targets.push({ pid, group: false });
  }
  const deadline = Date.now() + GRACE_MS;
  while (targets.some((target) => alive(target.pid, target.group)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const target of targets) if (alive(target.pid, target.group)) send(target.pid, target.group, "SIGKILL");
  for (const folder of removals) rmSync(folder, { recursive: true, force: true });
  process.exit(0);
}
