import type { z } from "zod";
import type { ListedRow } from "../trpc";

type SchemaDef = {
  type: string;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
};

const defOf = (schema: unknown): SchemaDef | undefined => (schema as { _zod?: { def: SchemaDef } })?._zod?.def;

/** Whether an answer of this output schema holds a list of rows (an array of objects) anywhere. */
export function holdsRowLists(schema: unknown): boolean {
  const def = defOf(schema);
  switch (def?.type) {
    case "array":
      return defOf(def.element)?.type === "object" || holdsRowLists(def.element);
    case "object":
      return Object.values(def.shape ?? {}).some(holdsRowLists);
    case "nullable":
    case "optional":
    case "default":
    case "readonly":
      return holdsRowLists(def.innerType);
    case "pipe":
      return holdsRowLists(def.out);
    case "union":
      return (def.options ?? []).some(holdsRowLists);
    default:
      return false;
  }
}

/** Whether a value holds every field of `part`, objects compared field by field. */
function holds(value: unknown, part: unknown): boolean {
  if (typeof part !== "object" || part === null) return value === part;
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(part).every(([field, expected]) => holds((value as Record<string, unknown>)[field], expected));
}

/** Whether the answer's list has a row holding every field of the listed one. */
export function answerShows(answer: unknown, listed: ListedRow): boolean {
  const rows = listed.list
    ? listed.list.split(".").reduce<unknown>((value, name) => (value as Record<string, unknown> | null)?.[name], answer)
    : answer;
  if (!Array.isArray(rows)) throw new Error(`the answer has no list at ${listed.list}`);
  return rows.some((row) => holds(row, listed.row));
}
