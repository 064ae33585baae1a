import type { CollectedAsset, CollectedCapture, Log, RunOptions, RunSink, SubmitReport } from "./run";

/** The contract's text limits of collect uploads (section 8). */
const MAX_URL = 2000;
const MAX_MESSAGE = 2000;
/** How often a refused request (429, 503) is tried again, and the longest wait between two tries. */
const MAX_TRIES = 20;
const MAX_WAIT_MS = 120_000;
/** How long a run whose replay is under way (its submit's answer lost) is watched, in reads a second apart. */
const REPLAY_READS = 300;

/** What the design host says of a run (the parts this client reads). */
export type RunRecord = {
  id: number;
  status: string;
  error?: string | null;
  lease_expires_at?: string;
  /** Set once the run was submitted (whatever its replay did after). */
  submitted_at?: string | null;
  replay?: unknown;
  [field: string]: unknown;
};

/** An answer the client did not expect: its status and the contract's `{message, error}` or `{message, errors}`. */
export class CollectHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: HTTP ${status}${describeBody(body)}`);
    this.name = "CollectHttpError";
  }
}

/** 409 at open: another run holds the collection lock until its lease ends. */
export class CollectionLocked extends Error {
  constructor(
    readonly holder: { id: number | null; opener: string | null; leaseExpiresAt: string | null },
    message: string,
  ) {
    super(message);
    this.name = "CollectionLocked";
  }
}

export type UploadOptions = {
  designUrl: string;
  token: string;
  log: Log;
  /** For tests: how a wait is spent. */
  sleep?: (ms: number) => Promise<void>;
};

export type UploadSink = RunSink & {
  /** The open run's id, once opened. */
  readonly runId: number | null;
  /** The run as the submit answered it (after its replay). */
  readonly submitted: RunRecord | null;
};

/**
 * The upload client of the design host's collect API: opens a run (taking the collection lock), uploads each asset
 * once (by its SHA-256), then each capture naming its assets, then submits; `fail` ends the run as failed. Refusals
 * that say to come back (429 with Retry-After, 503) are tried again; network errors too, for the uploads the server
 * answers idempotently (an asset's bytes, a capture's key with the same image).
 */
export function uploadSink(options: UploadOptions): UploadSink {
  const base = options.designUrl.replace(/\/+$/, "");
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const uploaded = new Set<string>();
  let runId: number | null = null;
  let submitted: RunRecord | null = null;

  /** A POST with `body`, or a GET without one. */
  async function call(
    what: string,
    path: string,
    body: FormData | Record<string, unknown> | null,
    { idempotent }: { idempotent: boolean },
  ): Promise<{ status: number; body: unknown }> {
    const json = body !== null && !(body instanceof FormData);
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method: body === null ? "GET" : "POST",
          headers: {
            authorization: `Bearer ${options.token}`,
            accept: "application/json",
            ...(json ? { "content-type": "application/json" } : {}),
          },
          body: json ? JSON.stringify(body) : body,
        });
      } catch (error) {
        if (!idempotent || attempt >= 3) throw new Error(`${what}: ${networkFailure(error)}`);
        options.log(`${what}: ${networkFailure(error)}; trying again`);
        await sleep(1000 * attempt);
        continue;
      }
      const text = await response.text();
      const parsed = parseJson(text);
      const retryable = response.status === 429 || response.status === 503 || (idempotent && response.status >= 502);
      if (retryable && attempt < MAX_TRIES) {
        const wait = Math.min(MAX_WAIT_MS, retryAfterMs(response.headers.get("retry-after")) ?? 1000 * attempt);
        options.log(`${what}: HTTP ${response.status}, trying again in ${Math.ceil(wait / 1000)} s`);
        await sleep(wait);
        continue;
      }
      return { status: response.status, body: parsed };
    }
  }

  const runPath = (suffix: string) => {
    if (runId === null) throw new Error("the run is not open");
    return `/api/agent/collect/runs/${runId}${suffix ? `/${suffix}` : ""}`;
  };

  /**
   * The submitted run once its replay ended, read with `GET .../runs/{run}` a second apart: the submit answers a run
   * still `replaying` when its replay takes more than a few seconds, and a submit whose answer never came (the
   * connection failed, or a retry found the run closed) may have reached the host all the same. Null when the run was
   * never submitted (the submit did not arrive, or the run was ended otherwise).
   */
  async function replayedRun(): Promise<RunRecord | null> {
    for (let read = 1; read <= REPLAY_READS; read += 1) {
      const answer = await call("read the run", runPath(""), null, { idempotent: true });
      const run = runOf(answer.body);
      if (answer.status !== 200 || !run) throw new CollectHttpError(answer.status, answer.body, "read the run");
      if (!run.submitted_at) return null;
      if (!replayUnderWay(run)) return run;
      await sleep(1000);
    }
    throw new Error(`run ${runId} was submitted, but its replay did not end within ${REPLAY_READS} s`);
  }

  return {
    get runId() {
      return runId;
    },
    get submitted() {
      return submitted;
    },

    async open(run: RunOptions) {
      const post = () => call("open a run", "/api/agent/collect/runs", run, { idempotent: false });
      let answer = await post();
      // A 409 that is not the lock (it changed hands while this run was opened) says to open again.
      const openAgain = () => answer.status === 409 && errorCode(answer.body) !== "collection_locked";
      for (let again = 1; again <= 3 && openAgain(); again++) {
        await sleep(500 * again);
        answer = await post();
      }
      if (answer.status === 409) throw locked(answer.body);
      const opened = runOf(answer.body);
      if (answer.status !== 201 || !opened) throw new CollectHttpError(answer.status, answer.body, "open a run");
      runId = opened.id;
      options.log(`opened run ${runId} on ${base} (lease until ${opened.lease_expires_at ?? "?"})`);
    },

    async asset(asset: CollectedAsset) {
      if (uploaded.has(asset.sha256)) return;
      if (asset.url.length > MAX_URL) {
        options.log(`skipped asset ${asset.url.slice(0, 80)}…: its address is over ${MAX_URL} characters`);
        return;
      }
      const answer = await call(`upload asset ${asset.url}`, runPath("assets"), assetForm(asset), { idempotent: true });
      if (answer.status !== 201 && answer.status !== 200) {
        throw new CollectHttpError(answer.status, answer.body, `upload asset ${asset.url}`);
      }
      uploaded.add(asset.sha256);
    },

    async capture(capture: CollectedCapture) {
      const form = captureForm(capture, uploaded);
      const what = `upload capture ${capture.key} (${capture.url} ${capture.viewport} ${capture.lang})`;
      const answer = await call(what, runPath("captures"), form, { idempotent: true });
      if (answer.status !== 201 && answer.status !== 200) throw new CollectHttpError(answer.status, answer.body, what);
    },

    async submit(report: SubmitReport) {
      let answer: { status: number; body: unknown } | null = null;
      let failure: unknown = null;
      try {
        answer = await call("submit the run", runPath("submit"), report, { idempotent: false });
      } catch (error) {
        failure = error;
      }
      const run = answer ? runOf(answer.body) : null;
      if (answer?.status === 200 && run) {
        if (replayUnderWay(run)) options.log(`submitted run ${runId}; its replay goes on, waiting for it`);
        submitted = replayUnderWay(run) ? ((await replayedRun()) ?? run) : run;
        return;
      }
      if (answer === null || errorCode(answer.body) === "run_not_open") {
        const after = await replayedRun();
        if (after) {
          options.log(`the submit's answer was lost; run ${runId} was submitted all the same: ${after.status}`);
          submitted = after;
          return;
        }
      }
      throw answer ? new CollectHttpError(answer.status, answer.body, "submit the run") : failure;
    },

    async fail(error: string) {
      if (runId === null) return;
      const reason = { error: error.slice(0, MAX_MESSAGE) };
      const answer = await call("fail the run", runPath("fail"), reason, { idempotent: false });
      if (answer.status !== 200) throw new CollectHttpError(answer.status, answer.body, "fail the run");
      options.log(`ended run ${runId} as failed`);
    },
  };
}

/** An asset's upload: its SHA-256, kind and address, and its bytes. */
function assetForm(asset: CollectedAsset): FormData {
  const form = new FormData();
  form.set("sha256", asset.sha256);
  form.set("type", asset.type);
  form.set("url", asset.url);
  form.set(
    "file",
    new Blob([new Uint8Array(asset.bytes)], { type: asset.type === "css" ? "text/css" : "text/javascript" }),
    `${asset.sha256}.${asset.type}`,
  );
  return form;
}

/** A capture's upload: where and how it was taken, what came of it, its image and HTML, and the assets uploaded. */
function captureForm(capture: CollectedCapture, uploaded: ReadonlySet<string>): FormData {
  const form = new FormData();
  form.set("key", capture.key);
  form.set("url", capture.url.slice(0, MAX_URL));
  form.set("viewport", capture.viewport);
  form.set("lang", capture.lang);
  form.set("auth", String(capture.auth));
  form.set("outcome", capture.outcome);
  if (capture.message !== null) form.set("message", capture.message.slice(0, MAX_MESSAGE));
  if (capture.login_stage !== null) form.set("login_stage", String(capture.login_stage));
  if (capture.saved_state !== null) form.set("saved_state", String(capture.saved_state));
  if (capture.final_url !== null && capture.final_url.length <= MAX_URL) form.set("final_url", capture.final_url);
  if (capture.http_status !== null) form.set("http_status", String(capture.http_status));
  form.set("meta", JSON.stringify(capture.meta));
  form.set(
    "image",
    new Blob([new Uint8Array(capture.image.bytes)], { type: `image/${capture.image.type}` }),
    `${capture.key}.${capture.image.type === "jpeg" ? "jpg" : capture.image.type}`,
  );
  if (capture.html !== null) {
    form.set("html", new Blob([new Uint8Array(capture.html)], { type: "text/html" }), `${capture.key}.html`);
  }
  form.set("assets", JSON.stringify(capture.assets.filter((sha) => uploaded.has(sha))));
  return form;
}

/** fetch's own error says only "fetch failed": its cause says what happened to the connection. */
function networkFailure(error: unknown): string {
  const { message, cause } = error as Error & { cause?: { message?: unknown } };
  return typeof cause?.message === "string" && cause.message !== "" ? `${message} (${cause.message})` : message;
}

/** A submitted run whose replay has not ended yet. */
const replayUnderWay = (run: RunRecord) => run.status === "submitted" || run.status === "replaying";

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 300);
  }
}

function errorCode(body: unknown): unknown {
  return (body as { error?: unknown } | null)?.error;
}

function runOf(body: unknown): RunRecord | null {
  const run = (body as { run?: unknown } | null)?.run as RunRecord | undefined;
  return run && typeof run.id === "number" ? run : null;
}

function locked(body: unknown): CollectionLocked {
  const run = ((body as { run?: Record<string, unknown> } | null)?.run ?? {}) as Record<string, unknown>;
  const holder = {
    id: typeof run.id === "number" ? run.id : null,
    opener: typeof run.opener === "string" ? run.opener : null,
    leaseExpiresAt: typeof run.lease_expires_at === "string" ? run.lease_expires_at : null,
  };
  const message = (body as { message?: unknown } | null)?.message;
  return new CollectionLocked(
    holder,
    `another run holds the collection lock: run ${holder.id ?? "?"}${holder.opener ? ` of ${holder.opener}` : ""}, ` +
      `its lease ends ${holder.leaseExpiresAt ?? "at a time the server did not say"}` +
      (typeof message === "string" ? ` (${message})` : ""),
  );
}

function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function describeBody(body: unknown): string {
  if (body === null || body === undefined) return "";
  if (typeof body === "string") return ` ${body}`;
  const { message, error, errors } = body as { message?: unknown; error?: unknown; errors?: unknown };
  const parts = [
    typeof message === "string" ? message : null,
    typeof error === "string" ? `(${error})` : null,
    errors ? JSON.stringify(errors).slice(0, 500) : null,
  ].filter(Boolean);
  return parts.length > 0 ? ` ${parts.join(" ")}` : ` ${JSON.stringify(body).slice(0, 300)}`;
}
