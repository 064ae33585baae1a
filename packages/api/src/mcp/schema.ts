import { z } from "zod";

/**
 * A zod schema as an MCP tool's JSON Schema (an object at the root, no `$schema`), without what only weighs (a host
 * may send the whole tools list to its model on every turn): the date-time regex zod writes beside every
 * `format: date-time` (the format says it), integer bounds that are only JavaScript's safe range, `type` beside an
 * `enum` of strings, nullable values as one schema instead of an `anyOf`. An answer's schema also leaves out its
 * fields' descriptions, which nested fields are required and `additionalProperties: false` (the REST route's OpenAPI
 * document has them all; every answer carries every field): it gives the shape and types of `structuredContent`.
 */
export function toolSchema(schema: z.ZodType, io: "input" | "output"): { type: "object"; [key: string]: unknown } {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  const { required } = json;
  const light = inlineSingleUse(lighter(json, io) as Json);
  return { ...light, ...(required ? { required } : {}), type: "object" };
}

type Json = Record<string, unknown>;

function lighter(node: unknown, io: "input" | "output"): unknown {
  if (Array.isArray(node)) return node.map((item) => lighter(item, io));
  if (node === null || typeof node !== "object") return node;
  const light: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" || key === "$defs") {
      const named = Object.entries(value as Json).map(([name, item]) => [name, lighter(item, io)]);
      light[key] = Object.fromEntries(named);
    } else light[key] = key === "enum" || key === "required" ? value : lighter(value, io);
  }
  if (light.format !== undefined) delete light.pattern;
  if (light.minimum === Number.MIN_SAFE_INTEGER) delete light.minimum;
  if (light.maximum === Number.MAX_SAFE_INTEGER) delete light.maximum;
  if (Array.isArray(light.enum) && light.type === "string") delete light.type;
  if (io === "output") {
    delete light.description;
    delete light.required;
    if (light.additionalProperties === false) delete light.additionalProperties;
  }
  return nullableOf(light);
}

/** Definitions referred to once written where they are used: the same schema, without their names twice. */
function inlineSingleUse(schema: Json): Json {
  const defs = schema.$defs as Record<string, Json> | undefined;
  if (!defs) return schema;
  const text = JSON.stringify(schema);
  const once = new Set(Object.keys(defs).filter((name) => text.split(`"#/$defs/${name}"`).length === 2));
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== "object") return node;
    const ref = (node as Json).$ref;
    const name = typeof ref === "string" ? ref.replace("#/$defs/", "") : "";
    if (once.has(name)) return inline(defs[name]);
    const entries = Object.entries(node).filter(([key]) => key !== "$defs");
    return Object.fromEntries(entries.map(([key, value]) => [key, inline(value)]));
  };
  const left = Object.entries(defs).filter(([name]) => !once.has(name));
  const inlined = inline(schema) as Json;
  return left.length > 0
    ? { ...inlined, $defs: Object.fromEntries(left.map(([name, def]) => [name, inline(def)])) }
    : inlined;
}

/** `anyOf: [X, {type: "null"}]` as X that also takes null, when X is a plain type or an enum. */
function nullableOf(node: Json): Json {
  const variants = node.anyOf;
  if (!Array.isArray(variants) || variants.length !== 2) return node;
  const [value, none] = variants as Json[];
  if (!value || none?.type !== "null" || Object.keys(none).length !== 1) return node;
  const { anyOf: _anyOf, ...rest } = node;
  if (Array.isArray(value.enum) && Object.keys(value).length === 1) return { ...rest, enum: [...value.enum, null] };
  if (typeof value.type === "string" && !value.$ref && !value.properties && !value.items) {
    return { ...rest, ...value, type: [value.type, "null"] };
  }
  return node;
}
