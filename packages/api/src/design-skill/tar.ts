import { gzipSync } from "node:zlib";

/** One file of an archive: its path inside it (forward slashes, relative) and its bytes. */
export type ArchiveFile = { path: string; bytes: Buffer };

const BLOCK = 512;

/** An octal header field of `width` bytes: digits, then a NUL. */
function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

/** A ustar header for a regular file, every variable field fixed (owner 0, mode 0644, mtime 0) so bytes repeat. */
function header(path: string, size: number): Buffer {
  const name = Buffer.from(path, "utf8");
  if (name.length > 100) throw new Error(`archive path longer than 100 bytes: ${path}`);
  const block = Buffer.alloc(BLOCK);
  name.copy(block, 0);
  block.write(octal(0o644, 8), 100, "ascii");
  block.write(octal(0, 8), 108, "ascii");
  block.write(octal(0, 8), 116, "ascii");
  block.write(octal(size, 12), 124, "ascii");
  block.write(octal(0, 12), 136, "ascii");
  block.write("        ", 148, "ascii");
  block.write("0", 156, "ascii");
  block.write("ustar\0", 257, "ascii");
  block.write("00", 263, "ascii");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return block;
}

/**
 * A gzip-compressed tar (ustar) of the files in the order given, the same bytes every time for the same files (no
 * dates, owners or host in it), so its sha256 names the content. Paths must be relative, without `..`.
 */
export function tarGz(files: readonly ArchiveFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    if (file.path.startsWith("/") || file.path.split("/").includes("..")) throw new Error(`unsafe path: ${file.path}`);
    parts.push(header(file.path, file.bytes.length), file.bytes);
    const padding = (BLOCK - (file.bytes.length % BLOCK)) % BLOCK;
    if (padding) parts.push(Buffer.alloc(padding));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  // Node writes gzip's mtime as 0 and its OS byte fixed: the compressed bytes depend only on the tar's.
  return gzipSync(Buffer.concat(parts), { level: 9 });
}
