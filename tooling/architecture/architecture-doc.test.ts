import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * ARCHITECTURE.md shows code to copy. Each `ts` block there must stand, line for line (indentation aside), in the
 * source file its first line names (`// from packages/api/src/...`), so that an example cannot drift from the code
 * the compiler checks.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

describe("ARCHITECTURE.md", () => {
  const doc = readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
  const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);

  it("shows code examples", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  it.each(blocks.map((block) => [block.split("\n")[0] as string, block]))(
    "%s stands in its file as shown",
    (first, block) => {
      const source = /^\/\/ from (\S+)$/.exec(first)?.[1];
      expect(source, "an example's first line names its file: // from <path>").toBeTruthy();
      const wanted = lines(block).slice(1);
      const have = lines(readFileSync(path.join(root, source as string), "utf8"));
      const at = have.findIndex((_, index) => wanted.every((line, offset) => have[index + offset] === line));
      expect(at, `not found in ${source}:\n${wanted.join("\n")}`).toBeGreaterThanOrEqual(0);
    },
  );

  it("names only files that exist (paths from the root, or from packages/api/src or packages/server/src)", () => {
    const named = [...doc.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\.tsx?)`/g)].map((match) => match[1] as string);
    expect(named.length).toBeGreaterThan(20);
    const exists = (file: string) => {
      try {
        return statSync(file).isFile();
      } catch {
        return false;
      }
    };
    const missing = named.filter(
      (file) => !["", "packages/api/src", "packages/server/src"].some((base) => exists(path.join(root, base, file))),
    );
    expect(missing).toEqual([]);
  });
});
