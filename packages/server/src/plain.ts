import type { Readable } from "node:stream";
import { z } from "zod";

/**
 * What a plain REST route's procedure returns: what JSON cannot carry. The edge turns it into HTTP, with the
 * conditional requests, ranges and HEAD handling every such answer needs, so a procedure only says what to send.
 */

/** Inclusive byte offsets, as in `Content-Range`. */
export type ByteRange = { start: number; end: number };

/** A stored file, streamed: never read whole into memory, never hashed per request. */
export type FileOutput = {
  kind: "file";
  contentType: string;
  size: number;
  /** Strong validator of the content (the stored sha256, say), without quotes; ranges and revalidation use it. */
  etag: string;
  lastModified: Date | null;
  /** Offered as the download's name (`Content-Disposition: attachment`); null leaves it to the URL. */
  filename: string | null;
  cacheControl: string;
  /** Opens the bytes, or one range of them. */
  open: (range?: ByteRange) => Promise<Readable> | Readable;
};

/** A small generated document (CSS, XML): revalidated by a hash of its text. */
export type TextOutput = {
  kind: "text";
  contentType: string;
  body: string;
  cacheControl?: string;
  lastModified?: Date | null;
};

/** Go elsewhere: a signed download address, a presigned object URL. */
export type RedirectOutput = {
  kind: "redirect";
  status: 302 | 303 | 307;
  location: string;
  cacheControl?: string;
};

export type PlainOutput = FileOutput | TextOutput | RedirectOutput;
export type PlainKind = PlainOutput["kind"];

/**
 * `attachment` with the name (RFC 6266); a name that is not plain printable ASCII also in RFC 8187 form, after an
 * ASCII stand-in for old clients.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  if (ascii === filename) return `attachment; filename="${filename}"`;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const ETAG_TOKEN = /^[\x21\x23-\x7e]+$/;

export const FileOutput = z.object({
  kind: z.literal("file"),
  contentType: z.string().min(1),
  size: z.number().int().min(0),
  etag: z.string().regex(ETAG_TOKEN, "an entity tag without quotes"),
  lastModified: z.date().nullable(),
  filename: z.string().min(1).nullable(),
  cacheControl: z.string().min(1),
  open: z.custom<FileOutput["open"]>((value) => typeof value === "function", "a function"),
});

export const TextOutput = z.object({
  kind: z.literal("text"),
  contentType: z.string().min(1),
  body: z.string(),
  cacheControl: z.string().min(1).optional(),
  lastModified: z.date().nullable().optional(),
});

export const RedirectOutput = z.object({
  kind: z.literal("redirect"),
  status: z.union([z.literal(302), z.literal(303), z.literal(307)]),
  location: z.string().min(1),
  cacheControl: z.string().min(1).optional(),
});

const kinds = new Map<z.ZodType, PlainKind>([
  [FileOutput, "file"],
  [TextOutput, "text"],
  [RedirectOutput, "redirect"],
]);

/** The kinds of answer a plain route's output schema allows: one of the schemas above, or a union of them. */
export function plainKinds(schema: unknown): PlainKind[] {
  const kind = kinds.get(schema as z.ZodType);
  if (kind) return [kind];
  if (schema instanceof z.ZodUnion) return schema.options.flatMap((option) => plainKinds(option));
  return [];
}
