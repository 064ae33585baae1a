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
