import net from "node:net";

/**
 * A TCP proxy in front of the PostgreSQL server of a database URL that a test can cut (connections refused, open ones reset) or
 * freeze (connections accepted, nothing forwarded either way, as with a server stopped by SIGSTOP), and restore.
 * Works the same in front of the embedded server and the system one, which other tests share.
 */
export async function startDbProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let mode: "pass" | "frozen" = "pass";
  let server: net.Server | null = null;
  let port = 0;

  const open = () =>
    new Promise<void>((resolve) => {
      const listener = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        const pair = { client, upstream };
        pairs.add(pair);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          pairs.delete(pair);
        };
        client.on("error", drop).on("close", drop);
        upstream.on("error", drop).on("close", drop);
        client.pipe(upstream);
        upstream.pipe(client);
        if (mode === "frozen") freeze(pair);
      });
      server = listener;
      listener.listen(port, "127.0.0.1", () => {
        port = (listener.address() as net.AddressInfo).port;
        resolve();
      });
    });

  const freeze = ({ client, upstream }: { client: net.Socket; upstream: net.Socket }) => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };

  await open();
  return {
    /** The database's URL through this proxy. */
    get url() {
      const through = new URL(databaseUrl);
      through.hostname = "127.0.0.1";
      through.port = String(port);
      return through.toString();
    },
    /** Refuses new connections and resets the open ones: the server is gone. */
    async cut() {
      await new Promise<void>((resolve) => {
        server?.close(() => resolve());
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
        pairs.clear();
      });
      server = null;
    },
    /** Keeps every connection open and silent: the server hangs. */
    freeze() {
      mode = "frozen";
      for (const pair of pairs) freeze(pair);
    },
    /** Back to normal: a cut proxy listens again on the same port; a frozen one forwards again. */
    async restore() {
      if (mode === "frozen") {
        mode = "pass";
        for (const { client, upstream } of pairs) {
          client.pipe(upstream);
          upstream.pipe(client);
          client.resume();
          upstream.resume();
        }
      }
      if (!server) await open();
    },
    async close() {
      await this.cut();
    },
  };
}
