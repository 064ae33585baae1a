import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const DbEnv = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || undefined)
    .pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  SHELF_DATA_DIR: z
    .string()
    .trim()
    .optional()
    .transform((value) => path.resolve(repoRoot, value || ".data")),
  SHELF_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).optional(),
});

export type DbEnv = z.infer<typeof DbEnv>;

export function readDbEnv(env: NodeJS.ProcessEnv = process.env): DbEnv {
  const parsed = DbEnv.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid database environment: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
