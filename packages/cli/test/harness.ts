import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAccountApiEdge, createRateLimiter, DEMO_DISCLOSURE, type RateLimiter } from "@shelf/api";
import { createEdgeServer } from "@shelf/api/edge";
import { accountServicesOf, createTestDelivery, TEST_OAUTH_SETTINGS, testLog } from "@shelf/api/testing";
import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const shelfBin = path.join(cliDir, "bin", "shelf.js");

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A TCP proxy in front of the server for download links: it can cut the first download after some bytes of its
 * body (optionally after a pause, and calling `onCut` then), or flip one byte of every body it carries. A cut hands
 * every byte before it to the client (flushed, then a FIN, never a reset that could drop bytes in flight), so the
 * client's Range after it is exactly `cutAfter` whatever the load.
 */
export async function startProxy(upstreamPort: number) {
  const settings = {
    cutAfter: null as number | null,
    stallMs: 0,
    tamper: false,
    /** Hide the client's Range header from the server, which then sends the whole file (200, not 206). */
    stripRange: false,
    cuts: 0,
    /** Called when the cut connection closes (after `stallMs`): e.g. to let the server's clock pass a link's life. */
    onCut: null as (() => void) | null,
    /** The Range header of each request seen (null without one). */
    ranges: [] as (string | null)[],
    /** How many more answers are cut at `cutAfter` once the first was (each cut bringing that many bytes more). */
    recut: 0,
    /**
     * Answers a connection's first request instead of the server: raw HTTP bytes (sent, then the connection closes),
     * "hang" (the connection is accepted and nothing ever comes back), "drop" (closed at once, no answer), or null to
     * pass it on as usual.
     */
    answer: null as ((request: string) => Buffer | "hang" | "drop" | null) | null,
  };
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    const upstream = net.connect(upstreamPort, "127.0.0.1");
    let decided = false;
    let answered = false;
    client.on("data", (chunk: Buffer) => {
      if (!decided) {
        decided = true;
        const answer = settings.answer?.(chunk.toString("latin1")) ?? null;
        if (answer !== null) {
          answered = true;
          upstream.destroy();
          if (answer === "drop") client.destroy();
          else if (answer !== "hang") client.end(answer);
        }
      }
      if (answered) return;
      let text = chunk.toString("latin1");
      if (/^(GET|HEAD) /.test(text)) settings.ranges.push(/\r\nrange: *([^\r]+)/i.exec(text)?.[1] ?? null);
      if (settings.stripRange) text = text.replace(/\r\nrange:/i, "\r\nx-no-range:");
      upstream.write(Buffer.from(text, "latin1"));
    });
    let head = Buffer.alloc(0);
    let bodySeen = -1;
    let cut = false;
    upstream.on("data", (chunk: Buffer) => {
      if (cut) return;
      let data = chunk;
      if (bodySeen < 0) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        data = head;
        bodySeen = 0;
        const bodyStart = end + 4;
        client.write(data.subarray(0, bodyStart));
        data = data.subarray(bodyStart);
      }
      if (settings.tamper && bodySeen <= 10 && bodySeen + data.length > 10) {
        data = Buffer.from(data);
        data[10 - bodySeen] = (data[10 - bodySeen] as number) ^ 0xff;
      }
      if (settings.cutAfter !== null && bodySeen + data.length >= settings.cutAfter) {
        const keep = settings.cutAfter - bodySeen;
        cut = true;
        if (settings.recut > 0) settings.recut--;
        else settings.cutAfter = null;
        settings.cuts++;
        upstream.pause();
        const onCut = settings.onCut;
        settings.onCut = null;
        // Once the kept bytes are handed to the kernel: wait, then close the way a dropped server does mid-body.
        client.write(data.subarray(0, keep), () => {
          setTimeout(() => {
            onCut?.();
            upstream.destroy();
            client.end();
          }, settings.stallMs);
        });
        return;
      }
      bodySeen += data.length;
      client.write(data);
    });
    upstream.on("end", () => client.end());
    upstream.on("error", () => {
      if (!answered) client.destroy();
    });
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    settings,
    close: () => {
      // A connection left hanging on purpose would hold the close forever.
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Raw bytes of an HTTP/1.1 answer that closes its connection, for `settings.answer`. */
export function rawAnswer(status: string, headers: Record<string, string | number> = {}, body = Buffer.alloc(0)) {
  const lines = Object.entries({ ...headers, "content-length": body.length, connection: "close" }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

export type ShelfServer = Awaited<ReturnType<typeof startServer>>;

/** How long the test servers' download links live. */
export const LINK_TTL_SECONDS = 600;

/**
 * The account API as the web app mounts it (the shared edge server), on a real port with a database of its own;
 * download links lead through a proxy the test controls, and are signed and checked on a clock the test can move
 * forward (`passTime`): a link expires because its life has passed, not because a test slept through it.
 */
export async function startServer(options: { rateLimiter?: RateLimiter } = {}) {
  const testDb: TestDatabase = await createTestDatabase();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proxy = await startProxy(port);
  const delivery = await createTestDelivery({ appUrl: proxy.url, ttlSeconds: LINK_TTL_SECONDS });
  let clockOffsetMs = 0;
  const clock = () => new Date(Date.now() + clockOffsetMs);
  const links = delivery.links;
  delivery.links = {
    link: (ticket, now) => links.link(ticket, now ?? clock()),
    verify: (token, filename, now) => links.verify(token, filename, now ?? clock()),
    productOf: links.productOf,
  };
  const edge = createAccountApiEdge({
    db: testDb.db,
    baseUrl,
    rateLimiter: options.rateLimiter ?? createRateLimiter({ points: 1_000_000 }),
    log: testLog,
    disclosure: DEMO_DISCLOSURE,
    ...accountServicesOf(delivery, {
      oauth: { ...TEST_OAUTH_SETTINGS, issuer: baseUrl, resource: `${baseUrl}/api/mcp` },
    }),
  });
  const server = createEdgeServer({
    edges: [edge],
    fallback: async (_req, res) => void res.writeHead(404).end(),
    log: testLog,
  });
  await server.listen(port, "127.0.0.1");
  return {
    db: testDb.db,
    baseUrl,
    delivery,
    proxy,
    /** Moves the server's clock for download links forward (links signed before then may have expired). */
    passTime: (seconds: number) => {
      clockOffsetMs += seconds * 1000;
    },
    close: async () => {
      await server.shutdown(1000);
      await proxy.close();
      await edge.close();
      await testDb.drop();
      await fs.rm(delivery.dir, { recursive: true, force: true });
    },
  };
}

/** A home of its own for one user of the client: its config, data and keys live there. */
export async function makeHome(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), "shelf-cli-home-"));
}

export type ShelfRun = { code: number | null; stdout: string; stderr: string };

/** The environment the client runs in: nothing of the test process's but PATH, and folders inside `home`. */
export type ShelfEnv = Record<string, string | undefined>;

export function shelfEnv(home: string, extra: Record<string, string> = {}): ShelfEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    ...extra,
  };
}

/** Starts the real `shelf` binary; `onStderr` sees stderr as it arrives (the sign-in code). */
export function startShelf(
  args: string[],
  env: ShelfEnv,
  onStderr?: (text: string) => void,
): { done: Promise<ShelfRun>; pid: number | undefined } {
  const child = spawn(process.execPath, [shelfBin, ...args], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    onStderr?.(stderr);
  });
  const done = new Promise<ShelfRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { done, pid: child.pid };
}

export function shelf(args: string[], env: ShelfEnv): Promise<ShelfRun> {
  return startShelf(args, env).done;
}
