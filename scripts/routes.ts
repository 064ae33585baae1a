// `npm run routes`: every route of both hosts as `METHOD path -> file:line`, read from the routers' own
// declarations (each procedure's `meta.openapi` or `meta.plain`). `--host account|design` prints one host's routes
// as `METHOD path` alone, for scripts and tests.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { appRouter, designRouter } from "@shelf/api";
import { collectRoutes } from "@shelf/api/edge";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const routersDir = path.join(root, "packages/api/src/routers");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sources(full);
    return entry.endsWith(".ts") && !entry.endsWith(".test.ts") ? [full] : [];
  });
}

type Procedures = Record<string, unknown>;
const proceduresOf = (value: unknown): Procedures | undefined =>
  (value as { _def?: { procedures?: Procedures } } | null)?._def?.procedures;

/**
 * Where each procedure is declared: the router file that exports it (the same procedure object the hosts' routers
 * hold), at the line of its key.
 */
async function declarations(): Promise<Map<unknown, string>> {
  const found = new Map<unknown, string>();
  for (const file of sources(routersDir)) {
    const module = (await import(file)) as Record<string, unknown>;
    const lines = readFileSync(file, "utf8").split("\n");
    for (const exported of Object.values(module)) {
      for (const [name, procedure] of Object.entries(proceduresOf(exported) ?? {})) {
        if (found.has(procedure)) continue;
        const key = name.split(".").at(-1) as string;
        const line = lines.findIndex((text) => new RegExp(`^\\s+${key}: `).test(text));
        if (line >= 0) found.set(procedure, `${path.relative(root, file)}:${line + 1}`);
      }
    }
  }
  return found;
}

const hosts = { account: appRouter, design: designRouter } as const;
const { values } = parseArgs({ options: { host: { type: "string" } } });
const host = values.host as keyof typeof hosts | undefined;
if (host !== undefined && !(host in hosts)) {
  process.stderr.write(`--host is account or design, not ${host}\n`);
  process.exit(2);
}

if (host) {
  for (const route of collectRoutes(hosts[host])) process.stdout.write(`${route.method} ${route.path}\n`);
} else {
  const declared = await declarations();
  for (const [name, router] of Object.entries(hosts)) {
    const procedures = proceduresOf(router) ?? {};
    const routes = collectRoutes(router);
    const width = Math.max(...routes.map((route) => route.method.length + route.path.length + 1));
    process.stdout.write(`${name} host (${routes.length} routes)\n`);
    for (const route of routes) {
      const where = declared.get(procedures[route.procedure]) ?? "(not found in packages/api/src/routers)";
      process.stdout.write(`  ${`${route.method} ${route.path}`.padEnd(width)}  -> ${where}\n`);
    }
  }
}
