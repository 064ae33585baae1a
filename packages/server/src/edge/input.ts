import type { FieldErrors } from "../errors";

export type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
};
export type OpenApiParameter = { in: string; name: string; required?: boolean; schema?: JsonSchema };

export type Scalar = "integer" | "number" | "boolean" | "string";
/** How one path or query parameter is read from its text. */
export type ParamSpec = { name: string; in: "path" | "query"; type: Scalar | "array"; items: Scalar };

export function scalarOf(schema: JsonSchema | undefined): Scalar | "array" {
  if (!schema) return "string";
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const kinds = variants.map(scalarOf).filter((kind) => kind !== "string");
    return kinds[0] ?? "string";
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((candidate) => candidate !== "null");
  return type === "integer" || type === "number" || type === "boolean" || type === "array" ? type : "string";
}

/** The specs of an operation's path and query parameters, from its OpenAPI parameter objects. */
export function paramSpecs(parameters: readonly OpenApiParameter[]): ParamSpec[] {
  return parameters
    .filter((parameter) => parameter.in === "path" || parameter.in === "query")
    .map((parameter) => {
      const type = scalarOf(parameter.schema);
      const items = type === "array" ? scalarOf(parameter.schema?.items) : "string";
      return {
        name: parameter.name,
        in: parameter.in as "path" | "query",
        type,
        items: items === "array" ? "string" : items,
      };
    });
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * A parameter's text as the value its schema takes. Text that is not exactly such a value stays text, so the
 * procedure's own schema refuses it with its own message: `1e3`, `0x10` and `1.0` are not integers.
 */
export function convert(type: Scalar, text: string): unknown {
  switch (type) {
    case "integer":
      return INTEGER.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
    case "number":
      return NUMBER.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "string":
      return text;
  }
}

const NUL_MESSAGE = "must not contain NUL characters";

function addError(errors: FieldErrors, field: string, message: string) {
  const list = errors[field] ?? [];
  if (!list.includes(message)) list.push(message);
  errors[field] = list;
}

/**
 * The declared path and query parameters as typed values. Undeclared query parameters are never read (a
 * parameter named `__proto__` or `constructor` is just ignored); a declared one given twice, and NUL anywhere
 * (PostgreSQL text cannot hold it), are field errors.
 */
export function readParameters(
  specs: readonly ParamSpec[],
  pathParams: Record<string, string>,
  query: URLSearchParams,
): { values: Record<string, unknown>; errors: FieldErrors } {
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const spec of specs) {
    const texts = spec.in === "path" ? [pathParams[spec.name] as string] : query.getAll(spec.name);
    if (texts.length === 0) continue;
    if (texts.some((text) => text.includes("\0"))) {
      addError(errors, spec.name, NUL_MESSAGE);
      continue;
    }
    if (spec.type === "array") values[spec.name] = texts.map((text) => convert(spec.items, text));
    else if (texts.length > 1) addError(errors, spec.name, "must be given once");
    else values[spec.name] = convert(spec.type, texts[0] as string);
  }
  return { values, errors };
}

/**
 * Field errors for every NUL in a parsed JSON body, in its strings and in its keys. Paths are built only for what is
 * reported: a body of a thousand fields costs a walk, not a thousand strings.
 */
export function nulErrors(value: unknown, path = "", errors: FieldErrors = {}): FieldErrors {
  const keys: (string | number)[] = [];
  const at = () => [path, ...keys].filter((part) => part !== "").join(".") || "body";
  const walk = (node: unknown) => {
    if (typeof node === "string") {
      if (node.includes("\0")) addError(errors, at(), NUL_MESSAGE);
    } else if (node instanceof Uint8Array) {
      // A file's bytes (multipart): binary, never stored as text.
    } else if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        keys.push(index);
        walk(node[index]);
        keys.pop();
      }
    } else if (node !== null && typeof node === "object") {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        if (key.includes("\0")) addError(errors, at(), "must not contain NUL characters in keys");
        keys.push(key);
        walk((node as Record<string, unknown>)[key]);
        keys.pop();
      }
    }
  };
  walk(value);
  return errors;
}

/**
 * The text fields of a multipart form as the values the JSON body would carry: each converted to the type its
 * property has in the body's schema (an integer field's `42` becomes 42), anything else left as text.
 */
export function formValues(
  fields: Record<string, string>,
  properties: Record<string, JsonSchema>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(fields)) {
    const type = scalarOf(properties[name]);
    values[name] = type === "array" ? text : convert(type, text);
  }
  return values;
}
