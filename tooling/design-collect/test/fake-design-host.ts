import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CaptureMeta } from "@shelf/api/schemas";
import { imageInfo } from "../src/image-info";

/**
 * A stand-in for the design host's collect routes, as the contract states them (section 4 and 8), until the real
 * host is merged: it checks every field of every upload and records what it was sent.
 */
export type FakeHost = {
  url: string;
  token: string;
  requests: { method: string; path: string; status: number }[];
  runs: FakeRun[];
  /** Answer 409 to the next open, naming this holder. */
  lockedBy: { id: number; opener: string; lease_expires_at: string } | null;
  /** Answer this many opens 409 `conflict` (the lock changed hands meanwhile) before opening. */
  openConflicts: number;
  /** Refuse the n-th capture upload (from 1) with a 500. */
  breakCapture: number | null;
  /** Answer the first asset upload 429 with `Retry-After: 0`. */
  throttleFirstAsset: boolean;
  close: () => Promise<void>;
};

export type FakeRun = {
  id: number;
  status: "open" | "submitted" | "failed";
  body: unknown;
  assets: Map<string, { type: string; url: string; bytes: Buffer }>;
  captures: Map<string, Record<string, unknown> & { image: Buffer; html: Buffer | null; assets: string[] }>;
  submit: unknown;
  error: string | null;
};

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export async function startFakeDesignHost(token = "shelf_design_fake-token"): Promise<FakeHost> {
  let assetsSeen = 0;
  let capturesSeen = 0;
  const host: FakeHost = {
    url: "",
    token,
    requests: [],
    runs: [],
    lockedBy: null,
    openConflicts: 0,
    breakCapture: null,
    throttleFirstAsset: false,
    close: async () => {},
  };

  const server = http.createServer(async (incoming, outgoing) => {
    const path = incoming.url ?? "/";
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      host.requests.push({ method: incoming.method ?? "", path, status });
      outgoing.writeHead(status, { "content-type": "application/json", ...headers });
      outgoing.end(JSON.stringify(body));
    };
    const invalid = (errors: Record<string, string>) => answer(422, { message: "The given data was invalid.", errors });
    try {
      if (incoming.headers.authorization !== `Bearer ${token}`) {
        return answer(401, { message: "Unauthenticated.", error: "invalid_api_key" });
      }
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const request = new Request(`http://fake${path}`, {
        method: incoming.method,
        headers: incoming.headers as Record<string, string>,
        body: incoming.method === "GET" ? undefined : Buffer.concat(chunks),
      });
      if (incoming.method === "POST" && path === "/api/agent/collect/runs") {
        if (host.lockedBy) {
          return answer(409, {
            message: "Another run holds the lock.",
            error: "collection_locked",
            run: host.lockedBy,
          });
        }
        if (host.openConflicts > 0) {
          host.openConflicts -= 1;
          return answer(409, { message: "The collection lock changed hands: open again.", error: "conflict" });
        }
        if (host.runs.some((run) => run.status === "open")) {
          return answer(409, { message: "Another run holds the lock.", error: "collection_locked", run: {} });
        }
        const run: FakeRun = {
          id: host.runs.length + 1,
          status: "open",
          body: await request.json(),
          assets: new Map(),
          captures: new Map(),
          submit: null,
          error: null,
        };
        host.runs.push(run);
        return answer(201, { run: { id: run.id, status: "open", lease_expires_at: new Date().toISOString() } });
      }
      const match = /^\/api\/agent\/collect\/runs\/(\d+)\/(assets|captures|fail|submit)$/.exec(path);
      const run = match ? host.runs.find((candidate) => candidate.id === Number(match[1])) : undefined;
      if (!match || !run || incoming.method !== "POST") return answer(404, { message: "Not found." });
      if (run.status !== "open") return answer(409, { message: "The run is not open.", error: "run_not_open" });
      const action = match[2];

      if (action === "assets") {
        assetsSeen += 1;
        if (host.throttleFirstAsset && assetsSeen === 1)
          return answer(429, { message: "Slow down." }, { "retry-after": "0" });
        const form = await request.formData();
        const file = form.get("file");
        const sha = String(form.get("sha256"));
        const url = String(form.get("url") ?? "");
        if (!(file instanceof File)) return invalid({ file: "required" });
        const bytes = Buffer.from(await file.arrayBuffer());
        if (bytes.length > 10_240) return answer(413, { message: "Too large.", error: "payload_too_large" });
        if (sha256(bytes) !== sha) return invalid({ sha256: "does not match the file" });
        if (!["css", "js"].includes(String(form.get("type")))) return invalid({ type: "css or js" });
        if (url.length === 0 || url.length > 2000) return invalid({ url: "1 to 2000 characters" });
        const created = !run.assets.has(sha);
        if (created) run.assets.set(sha, { type: String(form.get("type")), url, bytes });
        return answer(created ? 201 : 200, { asset: { sha256: sha, url } });
      }

      if (action === "captures") {
        capturesSeen += 1;
        if (host.breakCapture === capturesSeen) return answer(500, { message: "Server Error" });
        const form = await request.formData();
        const errors: Record<string, string> = {};
        const text = (name: string) => {
          const value = form.get(name);
          return typeof value === "string" ? value : null;
        };
        const key = text("key") ?? "";
        if (key.length !== 40) errors.key = "exactly 40 characters";
        for (const name of ["url", "final_url", "message"]) {
          if ((text(name)?.length ?? 0) > 2000) errors[name] = "at most 2000 characters";
        }
        if (!text("url")) errors.url = "required";
        if (!["desktop", "mobile"].includes(text("viewport") ?? "")) errors.viewport = "desktop or mobile";
        if (!["ko", "en"].includes(text("lang") ?? "")) errors.lang = "ko or en";
        if (!["ok", "failed", "redirected"].includes(text("outcome") ?? ""))
          errors.outcome = "ok, failed or redirected";
        for (const name of ["auth", "login_stage", "saved_state"]) {
          const value = text(name);
          if ((name === "auth" || value !== null) && value !== "true" && value !== "false")
            errors[name] = "true or false";
        }
        const status = text("http_status");
        if (status !== null && !/^\d{1,3}$/.test(status)) errors.http_status = "an integer";
        const meta = text("meta");
        if (meta !== null && !CaptureMeta.safeParse(JSON.parse(meta)).success) errors.meta = "not a CaptureMeta";
        const image = form.get("image");
        const imageBytes = image instanceof File ? Buffer.from(await image.arrayBuffer()) : null;
        if (!imageBytes || imageBytes.length > 30_720 || !imageInfo(imageBytes)) errors.image = "an image within 30720";
        const html = form.get("html");
        const htmlBytes = html instanceof File ? Buffer.from(await html.arrayBuffer()) : null;
        if (htmlBytes && htmlBytes.length > 10_240) errors.html = "at most 10240 bytes";
        const assets = JSON.parse(text("assets") ?? "[]") as string[];
        if (!Array.isArray(assets) || assets.some((sha) => !run.assets.has(sha))) errors.assets = "unknown asset";
        if (Object.keys(errors).length > 0) return invalid(errors);
        const fields = Object.fromEntries(
          [...form.entries()].filter(([, value]) => typeof value === "string").map(([name, value]) => [name, value]),
        );
        const previous = run.captures.get(key);
        if (previous && !previous.image.equals(imageBytes as Buffer)) {
          return answer(409, { message: "The key is taken.", error: "capture_key_taken" });
        }
        if (!previous) {
          run.captures.set(key, { ...fields, image: imageBytes as Buffer, html: htmlBytes, assets });
        }
        return answer(previous ? 200 : 201, { capture: { key } });
      }

      const raw = await request.text();
      const body = raw ? JSON.parse(raw) : {};
      if (action === "fail") {
        run.status = "failed";
        run.error = body.error ?? null;
        return answer(200, { run: { id: run.id, status: "failed", error: run.error } });
      }
      run.status = "submitted";
      run.submit = body;
      return answer(200, {
        run: { id: run.id, status: "replayed", replay: { added: { apps: 1, screens: run.captures.size, flows: 1 } } },
      });
    } catch (error) {
      answer(500, { message: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return host;
}
