import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CaptureMeta } from "../schemas/capture-meta";
import { type ArchiveFile, tarGz } from "./tar";

/**
 * The design host's agent skill package (the public Agent Skills format): a folder with `SKILL.md` (name and
 * description in its front matter) and the references it links to, served as one `.tar.gz` and listed at
 * `/.well-known/agent-skills/index.json` (Agent Skills discovery, schema 0.2.0). The capture metadata's JSON Schema
 * is written from the same zod schema the upload route checks, so the two cannot drift.
 */
export const SKILL_NAME = "shelf-design";
export const SKILL_ARCHIVE_PATH = `/.well-known/agent-skills/${SKILL_NAME}.tar.gz`;
export const SKILL_INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

export type SkillPackage = {
  name: string;
  description: string;
  files: { path: string; size: number; sha256: string }[];
  archive: { bytes: Buffer; size: number; sha256: string; mediaType: "application/gzip" };
};

const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), "files");
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The folder's files, relative paths with forward slashes, in byte order of their paths (the archive's order). */
function folderFiles(dir: string, prefix = ""): ArchiveFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? folderFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [{ path: `${prefix}${entry.name}`, bytes: readFileSync(path.join(dir, entry.name)) }],
  );
}

/** `name` and `description` from SKILL.md's YAML front matter (single-line scalars, as the skill writes them). */
export function frontMatter(text: string): { name: string; description: string } {
  const block = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1];
  if (!block) throw new Error("SKILL.md has no front matter");
  const fields = Object.fromEntries(
    block.split("\n").map((line) => {
      const at = line.indexOf(":");
      return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
  return z
    .object({
      name: z
        .string()
        .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
        .max(64),
      description: z.string().min(1).max(1024),
    })
    .parse(fields);
}

function build(): SkillPackage {
  const schema = `${JSON.stringify(z.toJSONSchema(CaptureMeta, { target: "draft-2020-12" }), null, 2)}\n`;
  const files = [
    ...folderFiles(folder),
    { path: "references/capture-meta.schema.json", bytes: Buffer.from(schema, "utf8") },
  ].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const skill = files.find((file) => file.path === "SKILL.md");
  if (!skill) throw new Error("the skill package has no SKILL.md");
  const archive = tarGz(files);
  return {
    ...frontMatter(skill.bytes.toString("utf8")),
    files: files.map((file) => ({ path: file.path, size: file.bytes.length, sha256: sha256(file.bytes) })),
    archive: { bytes: archive, size: archive.length, sha256: sha256(archive), mediaType: "application/gzip" },
  };
}

let built: SkillPackage | undefined;

/** The package, built once per process from the files shipped with the code (the same bytes on every instance). */
export function skillPackage(): SkillPackage {
  built ??= build();
  return built;
}
