// Bundles the client into one ES module for Node 20.9+: the workspace's own TypeScript (this package's and the
// shared zod schemas of @shelf/api/schemas) is compiled in; npm dependencies stay imports, resolved at run time.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

export async function build() {
  const pkg = JSON.parse(await readFile(`${here}package.json`, "utf8"));
  await esbuild.build({
    entryPoints: [`${here}src/main.ts`],
    outfile: `${here}dist/shelf.js`,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.9",
    logLevel: "warning",
    define: { SHELF_CLI_VERSION: JSON.stringify(pkg.version) },
    plugins: [
      {
        name: "npm-packages-stay-external",
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@shelf/") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await build();
