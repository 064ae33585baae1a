import { type ChildProcess, execFile, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

const tools = path.join(repoRoot, ".tools/conformance/node_modules");
const node = path.join(tools, "node/bin/node");
const cli = path.join(tools, "@modelcontextprotocol/conformance/dist/index.js");

export type ConformanceRun = { code: number; output: string; passed: number; failed: number };

/**
 * Runs the MCP conformance suite (installed with Node 22 into .tools/conformance by scripts/ensure-test-deps.sh)
 * with one command (`server --url ... --scenario ...`), and reads its tally.
 */
export function conformance(args: string[]): Promise<ConformanceRun> {
  return new Promise((resolve) => {
    execFile(node, [cli, ...args], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output; the tally is read plain
      const output = `${stdout}${stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
      resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, output, ...tallyOf(output) });
    });
  });
}

/**
 * A loopback proxy that adds `Authorization: Bearer` to every request (the suite cannot send one) and stands for the
 * server: a Host or Origin naming the proxy itself is passed on as the server's own; any other is passed unchanged,
 * so the server's DNS rebinding check still sees it.
 */
export async function bearerProxy(target: string, token: string): Promise<{ url: string; close: () => Promise<void> }> {
  const targetUrl = new URL(target);
  let own = new Set<string>();
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (own.has(headers.host ?? "")) headers.host = targetUrl.host;
    if (headers.origin && own.has(headers.origin.replace(/^http:\/\//, ""))) headers.origin = targetUrl.origin;
    const upstream = http.request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  own = new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  return {
    url: `http://localhost:${port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on now (for the suite's own callback server). */
export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * The suite's `authorization` command against an authorization server: it prints an authorization URL for a person
 * to open, waits for the redirect at its callback port, then exchanges the code. `authorizationUrl` resolves with
 * that URL; `done` with the run's tally once the suite has finished.
 */
export function conformanceAuthorization(args: string[]): {
  authorizationUrl: Promise<string>;
  done: Promise<ConformanceRun>;
  child: ChildProcess;
} {
  const child = spawn(node, [cli, "authorization", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let found: (url: string) => void = () => {};
  const authorizationUrl = new Promise<string>((resolve) => {
    found = resolve;
  });
  const collect = (chunk: Buffer) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output; it is read plain
    output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, "");
    const url = /^(https?:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
    if (url) found(url);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const done = new Promise<ConformanceRun>((resolve) => {
    child.on("exit", (code) => {
      resolve({ code: code ?? -1, output, ...tallyOf(output) });
    });
  });
  return { authorizationUrl, done, child };
}

/**
 * The suite's tally: "Passed: 3/3, 0 failed" (one scenario), or one "name: 2 passed, 0 failed" line per scenario.
 * Nothing recognisable counts as a failure.
 */
function tallyOf(output: string): { passed: number; failed: number } {
  const total = /Passed: (\d+)\/\d+, (\d+) failed/.exec(output);
  if (total) return { passed: Number(total[1]), failed: Number(total[2]) };
  const lines = [...output.matchAll(/: (\d+) passed, (\d+) failed/g)];
  if (lines.length === 0) return { passed: 0, failed: -1 };
  return {
    passed: lines.reduce((sum, line) => sum + Number(line[1]), 0),
    failed: lines.reduce((sum, line) => sum + Number(line[2]), 0),
  };
}

/**
 * Runs the conformance suite's server scenarios against an MCP endpoint that takes a bearer token (through
 * `bearerProxy`): each must pass a check and fail none.
 */
export async function expectServerScenarios(endpoint: string, token: string, scenarios: string[]): Promise<void> {
  const proxy = await bearerProxy(endpoint, token);
  try {
    for (const scenario of scenarios) {
      const run = await conformance(["server", "--url", proxy.url, "--scenario", scenario]);
      expect(run.failed, `${scenario}:\n${run.output}`).toBe(0);
      expect(run.passed, `${scenario}:\n${run.output}`).toBeGreaterThan(0);
    }
  } finally {
    await proxy.close();
  }
}
