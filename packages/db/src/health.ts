import postgres from "postgres";
import { migrationsApplied } from "./migrate";

export type DatabaseReport = { reachable: boolean; migrated: boolean; error?: string };

export type DatabaseHealth = {
  /** False from a failure until the database answers a probe again: requests meanwhile fail fast. */
  readonly up: boolean;
  /** A request saw the database fail: mark it down and probe until it answers. */
  reportFailure: (reason: string) => void;
  /** Reachable and migrated, checked at most once per `maxAgeMs` (readiness probes may poll every second). */
  check: () => Promise<DatabaseReport>;
  /** Successful and failed probes so far, and failures reported (for metrics). */
  readonly counts: { probesOk: number; probesFailed: number; failuresReported: number };
  close: () => Promise<void>;
};

export type HealthOptions = {
  /** A probe that takes longer than this counts as a failure (a frozen server never answers). */
  probeTimeoutMs?: number;
  /** How often a down database is probed. */
  probeIntervalMs?: number;
  /** How long a check's answer is reused. */
  maxAgeMs?: number;
  onChange?: (up: boolean, reason: string) => void;
};

/**
 * Watches one database over a connection of its own: `select 1` and the count of applied migrations, with a hard
 * time limit. Requests report failures; while the database is down it is probed on a timer, and the first answer
 * brings it back up.
 */
export function createDatabaseHealth(url: string, options: HealthOptions = {}): DatabaseHealth {
  const probeTimeoutMs = options.probeTimeoutMs ?? 2000;
  const probeIntervalMs = options.probeIntervalMs ?? 1000;
  const maxAgeMs = options.maxAgeMs ?? 1000;
  let up = true;
  let client: postgres.Sql | null = null;
  let last: { at: number; report: DatabaseReport } | null = null;
  let inflight: Promise<DatabaseReport> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const counts = { probesOk: 0, probesFailed: 0, failuresReported: 0 };

  const connect = () =>
    postgres(url, {
      max: 1,
      onnotice: () => {},
      // Its statements read no arrays; postgres.js's type fetch could end the process (installBuiltInArrayTypes).
      fetch_types: false,
      connect_timeout: Math.max(1, Math.ceil(probeTimeoutMs / 1000)),
      idle_timeout: 60,
      connection: { application_name: "shelf-health", statement_timeout: probeTimeoutMs },
    });

  async function probe(): Promise<DatabaseReport> {
    client ??= connect();
    const sql = client;
    let timeout: NodeJS.Timeout | undefined;
    try {
      const migrated = await Promise.race([
        migrationsApplied(sql),
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(new Error(`no answer within ${probeTimeoutMs} ms`)), probeTimeoutMs);
        }),
      ]);
      counts.probesOk++;
      setUp(true, "answered");
      return { reachable: true, migrated };
    } catch (error) {
      counts.probesFailed++;
      // A connection stuck on a frozen server is dropped; the next probe opens a new one.
      client = null;
      void sql.end({ timeout: 0 }).catch(() => {});
      const reason = (error as { code?: string }).code ?? (error as Error).message;
      setUp(false, reason);
      return { reachable: false, migrated: false, error: reason };
    } finally {
      clearTimeout(timeout);
    }
  }

  function setUp(value: boolean, reason: string) {
    if (up !== value) {
      up = value;
      options.onChange?.(value, reason);
    }
    if (!value) schedule();
  }

  function schedule() {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      // Never through the cache: a failed answer younger than maxAgeMs would end the loop with nobody probing.
      void probeOnce();
    }, probeIntervalMs);
    timer.unref();
  }

  /** One probe at a time: callers meanwhile share its answer. */
  function probeOnce(): Promise<DatabaseReport> {
    inflight ??= probe().then((report) => {
      last = { at: Date.now(), report };
      inflight = null;
      return report;
    });
    return inflight;
  }

  async function check(): Promise<DatabaseReport> {
    if (last && Date.now() - last.at < maxAgeMs && up === last.report.reachable) return last.report;
    return probeOnce();
  }

  return {
    get up() {
      return up;
    },
    reportFailure(reason) {
      counts.failuresReported++;
      last = null;
      setUp(false, reason);
    },
    check,
    counts,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end({ timeout: 1 }).catch(() => {});
    },
  };
}
