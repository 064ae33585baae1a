import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request as it passed through the proxy, with the host's answer to it. */
export type ProxiedRequest = {
  method: string;
  /** The path and query, as sent. */
  path: string;
  /** The host's status; null when the host gave none (its connection failed). */
  status: number | null;
  retryAfter: string | null;
  /** The host answered, but the answer was dropped on the way back (the client's connection was cut instead). */
  lost: boolean;
};

/**
 * What to do with a request, decided before it is passed on (the hook may first change the world, e.g. cut the
 * host's database): `pass` it, or `lose-answer`: pass it and let the host act on it, then cut the client's
 * connection instead of sending the answer, as a network that fails after the request arrived does.
 */
export type ProxyAction = "pass" | "lose-answer";
export type ProxyHook = (request: {
  index: number;
  method: string;
  path: string;
}) => ProxyAction | undefined | Promise<ProxyAction | undefined> | Promise<void>;

/** Hop-by-hop headers and those the proxy recomputes, never copied across. */
const NOT_FORWARDED = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

function forwardedHeaders(headers: http.IncomingHttpHeaders | http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_FORWARDED.has(name.toLowerCase())));
}

/**
 * An HTTP proxy in front of a real server, for tests: it records every request and the answer it got, and a hook
 * can lose an answer on the way back. Bodies are read whole before they are passed on (the uploads it carries are
 * small).
 */
export async function startHttpProxy(target: string) {
  const upstream = new URL(target);
  const requests: ProxiedRequest[] = [];
  let hook: ProxyHook | null = null;

  const send = (method: string, path: string, headers: http.IncomingHttpHeaders, body: Buffer) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const outgoing = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method,
          path,
          headers: { ...forwardedHeaders(headers), host: upstream.host, "content-length": body.length },
        },
        async (answer) => {
          const chunks: Buffer[] = [];
          try {
            for await (const chunk of answer) chunks.push(chunk as Buffer);
          } catch (error) {
            return reject(error);
          }
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks) });
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  const server = http.createServer(async (incoming, outgoing) => {
    const method = incoming.method ?? "GET";
    const path = incoming.url ?? "/";
    const entry: ProxiedRequest = { method, path, status: null, retryAfter: null, lost: false };
    requests.push(entry);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const action = (await hook?.({ index: requests.length - 1, method, path })) || "pass";
      const answer = await send(method, path, incoming.headers, Buffer.concat(chunks));
      entry.status = answer.status;
      entry.retryAfter = (answer.headers["retry-after"] as string | undefined) ?? null;
      if (action === "lose-answer") {
        entry.lost = true;
        incoming.socket.destroy();
        return;
      }
      outgoing.writeHead(answer.status, { ...forwardedHeaders(answer.headers), "content-length": answer.body.length });
      outgoing.end(answer.body);
    } catch {
      incoming.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** Decides what happens to each request from now on (null: pass every one). */
    setHook(next: ProxyHook | null) {
      hook = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type HttpProxy = Awaited<ReturnType<typeof startHttpProxy>>;
