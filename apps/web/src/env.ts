import { z } from "zod";

const WebEnv = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /** Seed the demo data set and print a demo key at start. */
  SHELF_DEMO: z.stringbool().default(false),
  SHELF_RATE_LIMIT_NAMESPACE: z
    .string()
    .regex(/^[\w.-]+$/)
    .default("api"),
});

export type WebEnv = z.infer<typeof WebEnv>;

export function readWebEnv(env: NodeJS.ProcessEnv = process.env): WebEnv {
  const parsed = WebEnv.safeParse(env);
  if (!parsed.success) throw new Error(`Invalid web environment: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
