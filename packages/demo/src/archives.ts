import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { zipArchive } from "./zip";

/* The demo releases' files, made from their product and version alone, so that every seed stores the same bytes. */

/**
 * A demo command-line tool's `.tar.gz`: a shell script at `binaryPath` that prints its name and version, and the
 * release's bytes beside it (so the download is as large as the other demo files). A ustar archive written here, with
 * fixed times and owners, so every seed stores the same bytes.
 */
export function demoToolArchive(binaryPath: string, name: string, version: string, bytes: Buffer): Buffer {
  const script = Buffer.from(`#!/bin/sh\necho "${name} ${version} (a Shelf demo tool)"\n`);
  const entry = (entryPath: string, mode: number, body: Buffer) => {
    const header = Buffer.alloc(512);
    header.write(entryPath, 0, 100, "utf8");
    header.write(`${mode.toString(8).padStart(7, "0")}\0`, 100, "ascii");
    header.write("0000000\0", 108, "ascii");
    header.write("0000000\0", 116, "ascii");
    header.write(`${body.length.toString(8).padStart(11, "0")}\0`, 124, "ascii");
    header.write("00000000000\0", 136, "ascii");
    header.write("        ", 148, "ascii");
    header.write("0", 156, "ascii");
    header.write("ustar\0" + "00", 257, "ascii");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
    const padding = Buffer.alloc((512 - (body.length % 512)) % 512);
    return [header, body, padding];
  };
  const dataPath = `share/${binaryPath.split("/").pop()}/data.bin`;
  return gzipSync(
    Buffer.concat([...entry(binaryPath, 0o755, script), ...entry(dataPath, 0o644, bytes), Buffer.alloc(1024)]),
  );
}

/**
 * A demo agent skill's `.zip`: in its root folder, the SKILL.md an agent reads (front matter with the skill's name and
 * description, then its instructions) and a README. Written with fixed times, so every seed stores the same bytes.
 */
export function demoSkillArchive(
  root: string,
  product: { slug: string; name: string; description: string },
  version: string,
): Buffer {
  const skill = [
    "---",
    `name: ${product.slug}`,
    `description: ${JSON.stringify(product.description)}`,
    "---",
    "",
    `# ${product.name}`,
    "",
    product.description,
    "",
    "This is a demo skill of Shelf: it shows how an agent skill is delivered and installed.",
    "",
  ].join("\n");
  const readme = [
    `# ${product.name} ${version}`,
    "",
    `A Shelf demo agent skill. \`shelf install ${product.slug}\` unpacks it and links it into your agent's skills`,
    "folder; SKILL.md is what the agent reads.",
    "",
  ].join("\n");
  return zipArchive([
    { path: `${root}/SKILL.md`, content: Buffer.from(skill) },
    { path: `${root}/README.md`, content: Buffer.from(readme) },
  ]);
}

/**
 * A demo release's file: a few hundred KiB of bytes that depend only on the product and version, so every seed stores
 * the same content (and the same sha256) for the same release.
 */
export function demoArtifact(slug: string, version: string): Buffer {
  const seed = createHash("sha256").update(`shelf-demo/${slug}/${version}`).digest();
  const size = 64 * 1024 + (seed.readUInt32BE(0) % (256 * 1024));
  const bytes = Buffer.alloc(size);
  let block = seed;
  for (let offset = 0; offset < size; offset += block.length) {
    block = createHash("sha256").update(block).digest();
    block.copy(bytes, offset);
  }
  return bytes;
}
