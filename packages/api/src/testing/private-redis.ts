import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";

/**
 * A redis-server of the test's own on a free port, which the test can freeze (SIGSTOP: connections stay open and
 * silent, as with a stalled host) and thaw. The shared Redis other tests use is never touched.
 */
export async function startPrivateRedis() {
  const port = await freePort();
  const server: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  for (let attempt = 0; !(await accepts(port)); attempt++) {
    if (attempt > 100) throw new Error("the private redis-server did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => server.kill("SIGSTOP"),
    thaw: () => server.kill("SIGCONT"),
    async stop() {
      server.kill("SIGCONT");
      server.kill("SIGTERM");
      if (server.exitCode === null) await once(server, "exit");
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
