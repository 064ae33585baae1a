import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { root, sourceFiles, workspaces } from "./source-files";

/**
 * The structure the folders promise, checked: each package declares what it imports, no file reaches itself through
 * its imports, base modules of the API import no domain, and shared schemas reach nothing but zod and pure modules.
 */
function imports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

const builtins = new Set(builtinModules);

describe("architecture", () => {
  it("every package declares the packages it imports", () => {
    const undeclared: string[] = [];
    const all = workspaces();
    const workspaceDirs = all.map(({ dir }) => dir).filter((dir) => dir !== root);
    for (const { dir, files } of all) {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.devDependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      for (const file of files) {
        for (const specifier of imports(file)) {
          if (specifier.startsWith(".")) {
            const target = path.resolve(path.dirname(file), specifier);
            const leaves =
              dir === root
                ? workspaceDirs.some((other) => target.startsWith(`${other}${path.sep}`))
                : !target.startsWith(`${dir}${path.sep}`);
            if (leaves) {
              undeclared.push(
                `${path.relative(root, file)} reaches into ${path.relative(root, target)} by a relative path`,
              );
            }
            continue;
          }
          if (specifier.startsWith("node:")) continue;
          const name = packageOf(specifier);
          if (builtins.has(name) || declared.has(name)) continue;
          undeclared.push(
            `${path.relative(root, file)} imports ${name}, which ${path.relative(root, dir) || "the root"}/package.json does not declare`,
          );
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  /** The floors, top to bottom: a package declares workspace packages of the floors below its own only. */
  const FLOORS = [
    ["apps/web", "apps/design", "apps/admin"],
    ["packages/web-kit", "packages/demo"],
    ["packages/api"],
    ["packages/server"],
    ["packages/db"],
  ];

  it("each floor (apps, the web kit and the demo, the API, the HTTP kit, the database) declares only floors below it", () => {
    const floorOf = new Map<string, number>();
    FLOORS.forEach((dirs, floor) => {
      for (const dir of dirs)
        floorOf.set(JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8")).name, floor);
    });
    const upward = FLOORS.flatMap((dirs, floor) =>
      dirs.flatMap((dir) => {
        const manifest = JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8"));
        const declared = [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies].flatMap((list) =>
          Object.keys(list ?? {}),
        );
        return declared
          .filter((name) => name !== manifest.name && (floorOf.get(name) ?? Number.POSITIVE_INFINITY) <= floor)
          .map((name) => `${dir} declares ${name}`);
      }),
    );
    expect(upward).toEqual([]);
  });

  const serverSrc = path.join(root, "packages/server/src");

  it("the HTTP kit imports no package above it, no router framework, and knows no OAuth and no MCP by name", () => {
    const files = sourceFiles(serverSrc);
    expect(files.length).toBeGreaterThan(10);
    const named: string[] = [];
    for (const file of files) {
      const relative = path.relative(root, file);
      for (const specifier of imports(file)) {
        if (/^@shelf\/(api|web-kit|web|design|admin|cli)(\/|$)/.test(specifier))
          named.push(`${relative} imports ${specifier}`);
        if (/oauth|mcp|modelcontextprotocol/i.test(specifier)) named.push(`${relative} imports ${specifier}`);
        // The edge serves any host's routes; reading them from tRPC's routers is the API's (packages/api/src/edge).
        if (/^(@trpc\/|trpc-to-openapi)/.test(specifier)) named.push(`${relative} imports ${specifier}`);
      }
      if (/oauth|mcp/i.test(path.basename(file))) named.push(`${relative} is named for a protocol`);
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
      const visit = (node: ts.Node) => {
        if (ts.isIdentifier(node) && /oauth|mcp/i.test(node.text)) named.push(`${relative} names ${node.text}`);
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(named).toEqual([]);
  });

  const apiSrc = path.join(root, "packages/api/src");
  const resolveRelative = (from: string, specifier: string) => {
    const base = path.resolve(path.dirname(from), specifier);
    for (const candidate of [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
      if (existsSync(candidate)) return candidate;
    }
    return base;
  };

  /** Imports from a lower floor of the API to a higher one, each with its reason (at most three): none today. */
  const UPWARD = new Set<string>([]);

  it("base modules of the API (the kit, auth, OAuth, mail, the gallery's core) import no router, MCP or demo", () => {
    const base = sourceFiles(apiSrc).filter((file) => {
      const relative = path.relative(apiSrc, file);
      return (
        !relative.endsWith(".test.ts") &&
        (/^(trpc|context|errors|abilities|plain|prepared|env|language|json-text|security-log|sql-text|log|product-access|client-policy|design-documents)\.ts$/.test(
          relative,
        ) ||
          /^(auth|edge|schemas|oauth|mail|storage|signing|delivery|catalog|commerce|design-gallery|design-skill)\//.test(
            relative,
          ))
      );
    });
    expect(base.length).toBeGreaterThan(60);
    const crossings: string[] = [];
    for (const file of base) {
      for (const specifier of imports(file)) {
        if (!specifier.startsWith(".")) continue;
        const target = path.relative(apiSrc, resolveRelative(file, specifier));
        const upward =
          /^(routers|demo|mcp|design-mcp|protocols|testing|host)\//.test(target) ||
          /^(root|account-api|design-api|api-edge|contract|index)\.ts$/.test(target);
        const crossing = `${path.relative(apiSrc, file)} imports ${target}`;
        if (upward && !UPWARD.has(crossing)) crossings.push(crossing);
      }
    }
    expect(UPWARD.size).toBeLessThanOrEqual(3);
    expect(crossings).toEqual([]);
  });

  it("the API's side of the edge (routes, document, direct calls) imports no OAuth, MCP, auth, procedure or router", () => {
    // The pipeline itself is the HTTP kit's (packages/server/src/edge), held by the kit's test above.
    const edgeFiles = sourceFiles(path.join(apiSrc, "edge")).filter((file) => !file.endsWith(".test.ts"));
    expect(edgeFiles.length).toBeGreaterThanOrEqual(4);
    const named: string[] = [];
    for (const file of edgeFiles) {
      for (const specifier of imports(file)) {
        if (specifier.startsWith("@modelcontextprotocol/"))
          named.push(`${path.relative(apiSrc, file)} imports ${specifier}`);
        if (!specifier.startsWith(".")) continue;
        const target = path.relative(apiSrc, resolveRelative(file, specifier));
        if (/^(oauth|mcp|design-mcp|protocols|auth|procedures|routers)\//.test(target) || target === "api-edge.ts") {
          named.push(`${path.relative(apiSrc, file)} imports ${target}`);
        }
      }
    }
    expect(named).toEqual([]);
  });

  it("a domain folder under routers/ imports no other domain folder (test files aside)", () => {
    const routers = path.join(apiSrc, "routers");
    const crossings: string[] = [];
    for (const file of sourceFiles(routers)) {
      if (file.endsWith(".test.ts")) continue;
      const domain = path.relative(routers, file).split(path.sep)[0];
      for (const specifier of imports(file)) {
        if (!specifier.startsWith(".")) continue;
        const target = path.relative(routers, resolveRelative(file, specifier));
        if (target.startsWith("..")) continue;
        if (target.split(path.sep)[0] !== domain)
          crossings.push(`routers/${path.relative(routers, file)} imports routers/${target}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it("the shared examples import a domain's services, never its router", () => {
    const crossings: string[] = [];
    for (const file of sourceFiles(path.join(apiSrc, "examples"))) {
      for (const specifier of imports(file)) {
        if (!specifier.startsWith(".")) continue;
        const target = path.relative(apiSrc, resolveRelative(file, specifier));
        if (/^routers\/[^/]+\/router\.ts$/.test(target) || /^(root|account-api|design-api)\.ts$/.test(target)) {
          crossings.push(`${path.relative(apiSrc, file)} imports ${target}`);
        }
      }
    }
    expect(crossings).toEqual([]);
  });

  it("no file imports itself back, through any chain of relative imports (type-only imports count too)", () => {
    const graph = new Map<string, string[]>();
    for (const { files } of workspaces()) {
      for (const file of files) {
        if (/\.test\.tsx?$/.test(file) || file.includes(`${path.sep}test${path.sep}`)) continue;
        const targets = imports(file)
          .filter((specifier) => specifier.startsWith("."))
          .map((specifier) => resolveRelative(file, specifier));
        graph.set(file, targets);
      }
    }
    // Tarjan's strongly connected components: every component of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[] = [];
    let counter = 0;
    const connect = (file: string) => {
      index.set(file, counter);
      low.set(file, counter);
      counter += 1;
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file) ?? []) {
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          connect(target);
          low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
        } else if (onStack.has(target)) {
          low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
        }
      }
      if (low.get(file) !== index.get(file)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(path.relative(root, member));
      } while (member !== file);
      const selfImport = (graph.get(file) ?? []).includes(file);
      if (component.length > 1 || selfImport) circles.push(component.sort().join(" <-> "));
    };
    for (const file of graph.keys()) if (!index.has(file)) connect(file);
    expect(graph.size).toBeGreaterThan(300);
    expect(circles).toEqual([]);
  });

  it("shared schemas reach only zod, the enum constants and other pure modules", () => {
    const pure = new Set(["zod", "@shelf/db/enums"]);
    // The contract's barrel (`@shelf/api/schemas`) sits beside the routers whose schemas it gathers.
    const entry = path.join(apiSrc, "contract.ts");
    const seen = new Set<string>();
    const impure: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of imports(file)) {
        if (specifier.startsWith(".")) visit(resolveRelative(file, specifier));
        // A module of the HTTP kit is judged like one of the API's own: it is bundled with the schemas.
        else if (specifier.startsWith("@shelf/server/"))
          visit(path.join(serverSrc, `${specifier.slice("@shelf/server/".length)}.ts`));
        else if (!pure.has(specifier)) impure.push(`${path.relative(apiSrc, file)} imports ${specifier}`);
      }
    };
    visit(entry);
    expect(seen.size).toBeGreaterThan(5);
    expect(impure).toEqual([]);
  });
});
