import { run } from "./cli";

// The first Ctrl-C stops the walk and fails the run (freeing the collection lock); a second one exits at once.
const interrupt = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupt.signal.aborted) process.exit(130);
    process.stderr.write("design:collect: stopping after this page; the run will be failed\n");
    interrupt.abort(new Error("interrupted"));
  });
}

const code = await run(
  process.argv.slice(2),
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  interrupt.signal,
);
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write("", () => resolve()));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
