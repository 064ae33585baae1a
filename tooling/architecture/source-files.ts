import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** What the architecture tests read: the checkout's TypeScript source files, by workspace. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === ".next" || entry.startsWith(".")) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith(".d.ts")) files.push(full);
  }
  return files;
}

/** Each workspace's folder and files, and the files at the root (bench, deploy, scripts, the architecture tests). */
export function workspaces(): { dir: string; files: string[] }[] {
  const dirs = ["apps", "packages", "tooling"].flatMap((group) =>
    readdirSync(path.join(root, group))
      .map((name) => path.join(root, group, name))
      .filter((dir) => existsSync(path.join(dir, "package.json"))),
  );
  const rootFiles = ["bench", "deploy", "scripts", "tooling/architecture"].flatMap((dir) =>
    existsSync(path.join(root, dir)) ? sourceFiles(path.join(root, dir)) : [],
  );
  return [
    ...dirs.map((dir) => ({ dir, files: sourceFiles(dir) })),
    { dir: root, files: [...rootFiles, path.join(root, "vitest.config.ts")] },
  ];
}
