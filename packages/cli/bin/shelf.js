#!/usr/bin/env node
// The `shelf` command. In the repository (where src/ exists) the bundle is rebuilt first when a source is newer, so
// `npx shelf` works right after `npm install`; an installed package ships dist/ built by `prepack`.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bundle = `${root}dist/shelf.js`;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

if (existsSync(`${root}src`) && (!existsSync(bundle) || newestSource(`${root}src`) > statSync(bundle).mtimeMs)) {
  const { build } = await import("../build.mjs");
  await build();
}
await import("../dist/shelf.js");
