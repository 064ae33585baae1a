import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { ByteRange } from "../plain";

/** More ranges than this (after merging) are not worth a multipart answer: the whole file is sent instead. */
const MAX_RANGES = 32;

export type RangeDecision = { kind: "full" } | { kind: "unsatisfiable" } | { kind: "ranges"; ranges: ByteRange[] };

/**
 * A `Range` header against a representation of `size` bytes (RFC 9110, 14.2). A header that is not a valid
 * `bytes` range set is ignored (the whole file, 200); ranges that all start past the end are unsatisfiable (416);
 * the rest are clipped to the file, and overlapping or adjacent ranges merged.
 */
export function evaluateRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: "full" };
  const match = /^bytes=(.+)$/i.exec(header.trim());
  if (!match) return { kind: "full" };
  const ranges: ByteRange[] = [];
  for (const part of (match[1] as string).split(",")) {
    const spec = /^\s*(\d*)-(\d*)\s*$/.exec(part);
    if (!spec || (spec[1] === "" && spec[2] === "")) return { kind: "full" };
    const [, first, last] = spec as unknown as [string, string, string];
    if (first === "") {
      const suffix = Number(last);
      if (suffix > 0 && size > 0) ranges.push({ start: Math.max(0, size - suffix), end: size - 1 });
      continue;
    }
    const start = Number(first);
    const end = last === "" ? size - 1 : Number(last);
    if (last !== "" && end < start) return { kind: "full" };
    if (start < size) ranges.push({ start, end: Math.min(end, size - 1) });
  }
  if (ranges.length === 0) return { kind: "unsatisfiable" };
  const merged = mergeRanges(ranges);
  if (merged.length > MAX_RANGES) return { kind: "full" };
  return { kind: "ranges", ranges: merged };
}

function mergeRanges(ranges: ByteRange[]): ByteRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const merged: ByteRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/**
 * `If-Range` (RFC 9110, 13.1.5): the range applies only if the client's validator still names this content.
 * An entity tag must match strongly; a date must equal Last-Modified exactly.
 */
export function ifRangeHolds(ifRange: string | undefined, etag: string, lastModified: Date | null): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === etag && !etag.startsWith("W/");
  const date = Date.parse(value);
  return lastModified !== null && !Number.isNaN(date) && date === Math.floor(lastModified.getTime() / 1000) * 1000;
}

export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/** A `multipart/byteranges` body (RFC 9110, 14.6): its content type, exact length and a lazy stream of it. */
export function multipartRanges(
  ranges: ByteRange[],
  size: number,
  contentType: string,
  open: (range: ByteRange) => Promise<Readable> | Readable,
): { contentType: string; length: number; open: () => Promise<Readable> } {
  const boundary = randomBytes(12).toString("hex");
  const heads = ranges.map((range, index) =>
    Buffer.from(
      `${index === 0 ? "" : "\r\n"}--${boundary}\r\nContent-Type: ${contentType}\r\nContent-Range: ${contentRange(range, size)}\r\n\r\n`,
    ),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length =
    heads.reduce((sum, head) => sum + head.length, 0) +
    ranges.reduce((sum, range) => sum + range.end - range.start + 1, 0) +
    tail.length;
  async function* parts() {
    for (const [index, range] of ranges.entries()) {
      yield heads[index] as Buffer;
      yield* await open(range);
    }
    yield tail;
  }
  return {
    contentType: `multipart/byteranges; boundary=${boundary}`,
    length,
    open: async () => Readable.from(parts(), { objectMode: false }),
  };
}
