import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The documents are checked like code: every link leads somewhere, every file, setting and endpoint they name
 * exists, and every command they show names a script, a command and options that the project has.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const exists = (file: string) => existsSync(path.join(root, file));

const documents = [
  "README.md",
  "ARCHITECTURE.md",
  "bench/README.md",
  "tooling/design-collect/README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

function anchors(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] as string)));
}

/** What a document shows as code: fenced shell blocks (a line continued by `\` joined) and inline spans. */
function shownCommands(text: string): string[] {
  const commands: string[] = [];
  for (const block of text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)) {
    const lines = (block[1] as string).replace(/\\\n\s*/g, " ").split("\n");
    for (const line of lines) {
      const command = line.replace(/(^|\s)#\s.*$/, "").trim();
      if (command !== "") commands.push(...command.split(/\s+&&\s+/));
    }
  }
  const prose = text.replace(/```[\s\S]*?```/g, "");
  for (const span of prose.matchAll(/`([^`]+)`/g)) {
    const command = (span[1] as string).replace(/\s+/g, " ").trim();
    if (/^(npm run|npx shelf|npx vitest|curl) /.test(command)) commands.push(...command.split(/\s+&&\s+/));
  }
  return commands;
}

/** Words of a command line, quotes kept together and removed. */
function words(command: string): string[] {
  return [...command.matchAll(/'[^']*'|"[^"]*"|\S+/g)].map((match) => (match[0] as string).replace(/^['"]|['"]$/g, ""));
}

const flagsOf = (argv: string[]) =>
  argv.filter((word) => /^--[a-z]/.test(word)).map((word) => word.replace(/^--(no-)?/, "").replace(/=.*$/, ""));

/** The operator CLI's commands and the options of their usage line (`synopsis`), read from their definitions. */
function adminCommands(): Map<string, Set<string>> {
  const dir = path.join(root, "apps/admin/src/commands");
  const found = new Map<string, Set<string>>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))) {
    const text = readFileSync(path.join(dir, file), "utf8");
    for (const match of text.matchAll(/name: "([\w:-]+)",\s+summary:[\s\S]*?synopsis:\s*"([^"]*)"/g)) {
      const options = [...(match[2] as string).matchAll(/--([\w-]+)/g)].map((m) => m[1] as string);
      found.set(match[1] as string, new Set([...options, "json", "help"]));
    }
  }
  return found;
}

function helpOf(program: string[], argv: string[]): string {
  return execFileSync(process.execPath, [...program, ...argv, "--help"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", SHELF_NO_UPDATE_NOTIFIER: "1" },
  });
}

const routeLists = new Map<string, { method: string; pattern: RegExp }[]>();

/** One host's routes as `npm run routes` lists them from the routers. */
function routesOf(router: "account" | "design"): { method: string; pattern: RegExp }[] {
  const known = routeLists.get(router);
  if (known) return known;
  const output = execFileSync(process.execPath, ["--import", "tsx", "scripts/routes.ts", "--host", router], {
    cwd: root,
    encoding: "utf8",
  });
  const routes = output
    .trim()
    .split("\n")
    .map((line) => {
      const [method, route] = line.split(/\s+/) as [string, string];
      const source = route.replace(/[.*?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\+?\}/g, "[^/?#]+(?:/[^?#]*)?");
      return { method, pattern: new RegExp(`^${source}$`) };
    });
  routeLists.set(router, routes);
  return routes;
}

describe("the documents", () => {
  it("README is a guide of at most 300 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(300);
  });

  it.each(documents)("%s: every link leads to a file and heading that exist", (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, "");
    const broken: string[] = [];
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (/^(https?|mailto):/.test(target)) continue;
      const [pathPart, anchor] = target.split("#") as [string, string | undefined];
      const linked = pathPart === "" ? file : path.normalize(path.join(path.dirname(file), pathPart));
      if (!exists(linked)) broken.push(`${target}: no such file`);
      else if (anchor !== undefined && !anchors(linked).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it.each(documents)("%s: every file and folder it names exists", (file) => {
    const named = [...read(file).matchAll(/`((?:apps|packages|tooling|bench|scripts|deploy|docs)\/[\w./@[\]-]+)`/g)]
      .map((match) => (match[1] as string).replace(/\/$/, ""))
      // Test outputs (screenshots, terminal captures) exist once the tests have run.
      .filter((name) => !/\.\.\.|\*|test-results/.test(name));
    expect(named.filter((name) => !exists(name))).toEqual([]);
  });

  it("every setting the documents name is read somewhere in the code", () => {
    const code = execFileSync(
      "git",
      ["grep", "-h", "-o", "-E", "SHELF_[A-Z0-9_]+", "--", "*.ts", "*.tsx", "*.sh", "*.mjs"],
      {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const known = new Set(code.split("\n"));
    const missing = new Set<string>();
    for (const file of documents) {
      for (const match of read(file).matchAll(/\bSHELF_[A-Z0-9_]*[A-Z0-9]\b(?!_\*)/g)) {
        if (!known.has(match[0])) missing.add(`${file}: ${match[0]}`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it("every endpoint the documents name is a route of its host", () => {
    const account = routesOf("account");
    const design = routesOf("design");
    // Served by each host's edge or start-up rather than by a router: the OpenAPI documents, the operator's
    // endpoints, the design MCP, and the pages of the authorization server and the API reference.
    const served = new Set(["/api/openapi.json", "/healthz", "/readyz", "/metrics", "/mcp", "/oauth/authorize"]);
    const missing: string[] = [];
    for (const file of documents) {
      const text = read(file);
      const mentions = [
        ...[...text.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]+)`/g)].map((m) => [m[1], m[2]]),
        ...[...text.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) +\| `(\/[^`]+)`/gm)].map((m) => [m[1], m[2]]),
      ] as [string, string][];
      for (const [method, written] of mentions) {
        const routePath = written.replace(/[?#].*$/, "");
        if (routePath.includes("…") || routePath.includes("...") || served.has(routePath)) continue;
        const found = [...account, ...design].some((route) => route.method === method && route.pattern.test(routePath));
        if (!found) missing.push(`${file}: ${method} ${written}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every command the documents show exists, with the options it is shown with", () => {
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    const workspaceScripts = (name: string) => {
      const dir = ["apps", "packages", "tooling"]
        .flatMap((group) => readdirSync(path.join(root, group)).map((entry) => `${group}/${entry}`))
        .find((dir) => exists(`${dir}/package.json`) && JSON.parse(read(`${dir}/package.json`)).name === name);
      return dir ? (JSON.parse(read(`${dir}/package.json`)).scripts as Record<string, string>) : {};
    };
    const admin = adminCommands();
    const projects = new Set([...read("vitest.config.ts").matchAll(/name: "([\w-]+)"/g)].map((m) => m[1] as string));
    const account = routesOf("account");
    const design = routesOf("design");
    const shelfHelp = new Map<string, string>();
    const collectHelp = helpOf(["--import", "tsx", "tooling/design-collect/src/main.ts"], []);

    const wrong: string[] = [];
    let checked = 0;
    for (const file of documents) {
      for (const command of shownCommands(read(file))) {
        const argv = words(command.replace(/^\S+=\S+\s+/g, ""));
        const say = (why: string) => wrong.push(`${file}: ${command}: ${why}`);
        if (argv[0] === "npm" && argv[1] === "run") {
          checked++;
          const workspace = argv.indexOf("-w");
          const script = argv[2] as string;
          const known = workspace >= 0 ? workspaceScripts(argv[workspace + 1] as string) : scripts;
          if (!(script in known)) say(`no script "${script}"`);
          const rest = argv.slice(argv.indexOf("--") + 1);
          if (script === "admin" && argv.includes("--")) {
            const name = rest[0] as string;
            if (name === "--help" || name.startsWith("<")) continue;
            const options = admin.get(name);
            if (!options) say(`no operator command "${name}"`);
            else for (const flag of flagsOf(rest)) if (!options.has(flag)) say(`${name} has no --${flag}`);
          }
          if (script === "design:collect" && argv.includes("--")) {
            for (const flag of flagsOf(rest))
              if (flag !== "help" && !collectHelp.includes(`--${flag}`)) say(`no --${flag}`);
          }
        } else if (argv[0] === "npx" && argv[1] === "shelf") {
          checked++;
          const positional = argv.slice(2).filter((word, index, all) => {
            const before = all[index - 1];
            return !word.startsWith("-") && !(before?.startsWith("--") && !["--no-browser", "--json"].includes(before));
          });
          // Words after the command's own name are its arguments; help resolves the command from them.
          const key = positional.join(" ");
          if (!shelfHelp.has(key)) {
            try {
              shelfHelp.set(key, helpOf(["packages/cli/bin/shelf.js"], positional));
            } catch {
              shelfHelp.set(key, "");
            }
          }
          const help = shelfHelp.get(key) as string;
          if (help === "") say("shelf refuses it");
          for (const flag of flagsOf(argv.slice(2))) if (!help.includes(`--${flag}`)) say(`no --${flag}`);
        } else if (argv[0] === "npx" && argv[1] === "vitest") {
          checked++;
          const project = argv[argv.indexOf("--project") + 1];
          if (argv.includes("--project") && !projects.has(project as string)) say(`no project "${project}"`);
          for (const target of argv.slice(2).filter((word) => /^(apps|packages|tooling|deploy)\//.test(word))) {
            if (!exists(target)) say(`no ${target}`);
          }
        } else if (argv[0] === "curl") {
          const url = argv.find((word) => /^https?:\/\/localhost:300[01]\//.test(word));
          if (!url) continue;
          checked++;
          const { port, pathname } = new URL(url);
          const explicit = argv[argv.indexOf("-X") + 1];
          const method = argv.includes("-X") ? (explicit as string) : argv.includes("-d") ? "POST" : "GET";
          const routes = port === "3001" ? design : account;
          if (!routes.some((route) => route.method === method && route.pattern.test(pathname))) {
            say(`no route ${method} ${pathname}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });
});

it("the documents folder holds the reference the README points to", () => {
  const linked = [...read("README.md").matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map((match) => match[1] as string);
  const present = readdirSync(path.join(root, "docs")).map((name) => `docs/${name}`);
  expect(present.filter((file) => !linked.includes(file))).toEqual([]);
  expect(statSync(path.join(root, "docs")).isDirectory()).toBe(true);
});
