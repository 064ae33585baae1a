import path from "node:path";
import { envErrorLine, optionalSetting, SetupError } from "@shelf/db/env";
import { z } from "zod";

const ApiEnv = z.object({
  SHELF_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,11}$/, "2 to 12 lowercase letters or digits, starting with a letter")
    .default("shelf"),
  /** Public base URL for links; unset, the web app uses http://localhost:<its port>. */
  SHELF_BASE_URL: optionalSetting()
    .pipe(z.url({ protocol: /^https?$/ }).optional())
    .transform((value) => value?.replace(/\/+$/, "")),
  SHELF_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  REDIS_URL: optionalSetting().pipe(z.url({ protocol: /^rediss?$/ }).optional()),
  SHELF_TRUST_PROXY: z.stringbool().default(false),
  /** The Ed25519 signing key set (a JSON file every instance shares); unset: signing-keys.json in the data folder. */
  SHELF_SIGNING_KEYS_FILE: optionalSetting(),
});

export type ApiEnv = z.infer<typeof ApiEnv>;

export function readApiEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
  const parsed = ApiEnv.safeParse(env);
  if (!parsed.success) throw new SetupError(envErrorLine(parsed.error));
  return parsed.data;
}

/** Where the signing key set lives. */
export function signingKeysFile(env: ApiEnv, dataDir: string): string {
  return env.SHELF_SIGNING_KEYS_FILE ?? path.join(dataDir, "signing-keys.json");
}
