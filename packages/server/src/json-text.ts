import { z } from "zod";

/**
 * JSON already written, in the exact shape of a schema: what PostgreSQL builds for a hot endpoint (the library),
 * so that Node neither parses rows into objects nor serialises them again. The edge writes the text as it is.
 */
export class JsonText<T> {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  /** The value, for callers that want objects (pages; tests). */
  value(): T {
    return JSON.parse(this.text) as T;
  }
}

const documented = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The output schema of a procedure that returns JsonText of `schema`: at run time only the wrapper is checked (the
 * text is not parsed again); the document shows `schema`, and the tests check every answer against it in full.
 */
export function jsonTextOf<Schema extends z.ZodType>(schema: Schema) {
  const wrapper = z.instanceof(JsonText) as unknown as z.ZodType<JsonText<z.output<Schema>>>;
  documented.set(wrapper, schema);
  return wrapper;
}

/** The schema a JsonText output stands for, or undefined for any other output schema. */
export function jsonTextSchema(output: unknown): z.ZodType | undefined {
  return documented.get(output as z.ZodType);
}

/**
 * How deeply a client's JSON may nest objects and arrays: far more than any input here has, far less than the
 * recursion that walks, validates or serialises a parsed value can take (8,000 levels overflow the stack).
 */
export const MAX_JSON_DEPTH = 64;

/** The field error for JSON nested deeper than that. */
export const TOO_DEEP = `must nest objects and arrays at most ${MAX_JSON_DEPTH} levels deep`;

export type ClientJson = { ok: true; value: unknown } | { ok: false; reason: "malformed" | "too_deep" };

/** JSON text from a client, parsed only if it nests at most `MAX_JSON_DEPTH` levels, which is judged on the text. */
export function parseClientJson(text: string): ClientJson {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return { ok: false, reason: "too_deep" };
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: "malformed" };
  }
}

/** Body types as the `Content-Type` header names them (parameters such as charset allowed). */
export const JSON_TYPE = /^application\/(.+\+)?json\s*(;|$)/i;
