import { Readable } from "node:stream";
import busboy from "busboy";
import type { FieldErrors } from "../errors";
import { type EdgeRequest, utf8 } from "./request";
import { UploadedFile } from "./uploaded-file";

/** What a route takes in a multipart body: its file fields, each with the most bytes it may hold. */
export type MultipartSpec = { files: Record<string, { maxBytes: number }> };

/** A text field is at most this long; a form has at most this many fields. */
const FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 100;

export type MultipartRead =
  | { ok: true; fields: Record<string, string>; files: Record<string, UploadedFile> }
  | { ok: false; reason: "too_large" | "malformed" }
  | { ok: false; reason: "invalid"; errors: FieldErrors };

/** The most a multipart body of this route may hold: its files at their limits, and its text fields. */
export function multipartBodyLimit(spec: MultipartSpec): number {
  return Object.values(spec.files).reduce((sum, file) => sum + file.maxBytes, 0) + MAX_FIELDS * FIELD_BYTES;
}

class BodyTooLarge extends Error {}

/**
 * A text field's value in strict UTF-8, as JSON bodies are read, or null. busboy decodes a part without a charset as
 * Latin-1 here, so its characters are its bytes, judged as UTF-8. A part that declares a charset was decoded by busboy
 * and its bytes are gone: decoded beyond Latin-1, it is taken unless it holds replacement characters (bad UTF-8);
 * within Latin-1, it is judged like an undeclared part (a declared Latin-1 `é` is refused, and so is a declared
 * UTF-8 text whose only non-ASCII characters are Latin-1 ones); one busboy cannot decode (undefined) is refused.
 */
function strictText(value: string | undefined): string | null {
  if (value === undefined) return null;
  const bytes = Buffer.from(value, "latin1");
  if (bytes.toString("latin1") !== value) return value.includes("\ufffd") ? null : value;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The body's chunks, refusing to read past `limit` bytes. */
async function* capped(body: AsyncIterable<Uint8Array>, limit: number) {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.byteLength;
    if (read > limit) throw new BodyTooLarge();
    yield chunk;
  }
}

/**
 * Reads a `multipart/form-data` body with busboy: text fields as strings, the declared file fields whole (each
 * within its limit: past it, 413), never more than the route's whole limit. A file in an undeclared field, a field
 * given twice, or an oversized text field is a field error; a body that is not a well-formed form is malformed.
 */
export async function readMultipart(request: EdgeRequest, spec: MultipartSpec): Promise<MultipartRead> {
  const contentType = request.header("content-type") ?? "";
  if (!request.body) return { ok: false, reason: "malformed" };
  const limit = multipartBodyLimit(spec);
  const declared = Number(request.header("content-length"));
  if (Number.isFinite(declared) && declared > limit) return { ok: false, reason: "too_large" };
  const largest = Math.max(0, ...Object.values(spec.files).map((file) => file.maxBytes));
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      // Bytes as they came (Latin-1 maps each to one character), for `strictText` to judge as UTF-8.
      defCharset: "latin1",
      limits: {
        fileSize: largest + 1,
        files: Object.keys(spec.files).length,
        fields: MAX_FIELDS,
        fieldSize: FIELD_BYTES,
      },
    });
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const fields: Record<string, string> = Object.create(null);
  const files: Record<string, UploadedFile> = Object.create(null);
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  let tooLarge = false;
  const done = new Promise<void>((resolve, reject) => {
    parser.on("field", (name, value: string | undefined, info) => {
      const text = strictText(value);
      if (info.valueTruncated) fail(name, `must be at most ${FIELD_BYTES} bytes`);
      else if (text === null) fail(name, "must be text in UTF-8");
      else if (name in fields || name in files) fail(name, "must be given once");
      else if (name in spec.files) fail(name, "must be a file");
      else fields[name] = text;
    });
    parser.on("file", (name, stream, info) => {
      const limit = spec.files[name]?.maxBytes;
      if (limit === undefined) {
        fail(name, "is not a file field");
        stream.resume();
        return;
      }
      // Destroying the parser (the body passed its limit) destroys the file's stream with the same error, which the
      // parser reports; unheard here, it would be thrown from inside Node's HTTP parser (a 400 from Node instead).
      stream.on("error", () => {});
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) tooLarge = true;
        else chunks.push(chunk);
      });
      stream.on("end", () => {
        if (name in fields || name in files) fail(name, "must be given once");
        else
          files[name] = new UploadedFile(
            info.filename || null,
            info.mimeType || "application/octet-stream",
            Buffer.concat(chunks, Math.min(size, limit)),
          );
      });
    });
    parser.on("filesLimit", () => fail("body", "has more files than this endpoint takes"));
    parser.on("fieldsLimit", () => fail("body", `has more than ${MAX_FIELDS} fields`));
    parser.on("error", reject);
    parser.on("close", resolve);
  });
  const source = Readable.from(capped(request.body, limit));
  source.on("error", (error) => parser.destroy(error));
  try {
    source.pipe(parser);
    await done;
  } catch (error) {
    return { ok: false, reason: error instanceof BodyTooLarge ? "too_large" : "malformed" };
  }
  if (tooLarge) return { ok: false, reason: "too_large" };
  if (Object.keys(errors).length > 0) return { ok: false, reason: "invalid", errors };
  return { ok: true, fields, files };
}
