import path from "node:path";
import { envErrorLine, optionalSetting, SetupError } from "@shelf/db/env";
import type { SigningKeySource } from "@shelf/server/signing/keyring";
import { z } from "zod";

const ApiEnv = z
  .object({
    SHELF_KEY_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9]{1,11}$/, "2 to 12 lowercase letters or digits, starting with a letter")
      .default("shelf"),
    /** Public base URL for links; unset, the web app uses http://localhost:<its port>. */
    SHELF_BASE_URL: optionalSetting()
      .pipe(z.url({ protocol: /^https?$/ }).optional())
      .transform((value) => value?.replace(/\/+$/, "")),
    SHELF_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    /**
     * OAuth dynamic registrations per minute per client address. Hosted connectors (claude.ai's, say) register every
     * person's connection from a few shared addresses, so this is well above what one person needs.
     */
    SHELF_OAUTH_REGISTRATIONS_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    /**
     * OAuth token requests per minute per client address, counted before anything else (each live grant is also
     * counted by `SHELF_RATE_LIMIT_PER_MINUTE`). Hosted connectors refresh for all their people from a few addresses.
     */
    SHELF_OAUTH_TOKEN_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).default(600),
    REDIS_URL: optionalSetting().pipe(z.url({ protocol: /^rediss?$/ }).optional()),
    SHELF_TRUST_PROXY: z.stringbool().default(false),
    /** The Ed25519 signing key set (a JSON file every instance shares); unset: signing-keys.json in the data folder. */
    SHELF_SIGNING_KEYS_FILE: optionalSetting(),
    /** The signing key set itself (the key file's JSON), for deployments that keep secrets in the environment. */
    SHELF_SIGNING_KEYS: optionalSetting(),
    /** The older front host's origins (comma-separated): they serve /api/... only, with the headers contract 5.1 lists. */
    SHELF_LEGACY_URL: optionalSetting().pipe(
      z
        .string()
        .transform((list) =>
          list
            .split(",")
            .map((origin) => origin.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1))
        .optional(),
    ),
    /** Public base URL of the authorization server (OAuth); unset: SHELF_BASE_URL. */
    SHELF_AUTH_URL: optionalSetting()
      .pipe(z.url({ protocol: /^https?$/ }).optional())
      .transform((value) => value?.replace(/\/+$/, "")),
    /**
     * For tests of client ID metadata documents: the one loopback https origin (e.g. `https://localhost:8443`) whose
     * documents may be fetched. Unset (always, in production): loopback and private addresses are never fetched.
     */
    SHELF_OAUTH_LOOPBACK_DOCUMENT_ORIGIN: optionalSetting()
      .pipe(z.url({ protocol: /^https$/ }).optional())
      .transform((value) => value?.replace(/\/+$/, "")),
    /** Public base URL of the design host (its own app); unset: not served by this deployment. */
    SHELF_DESIGN_URL: optionalSetting()
      .pipe(z.url({ protocol: /^https?$/ }).optional())
      .transform((value) => value?.replace(/\/+$/, "")),
    /**
     * Memory for the gallery's facets per filter set (MB, per process): each is counted once per replay and kept
     * until the next; 0 counts every request.
     */
    SHELF_GALLERY_FACET_CACHE_MB: z.coerce.number().min(0).max(4096).default(32),
    /** How long a collect run holds the design host's collection lock without an upload (each upload renews it). */
    SHELF_COLLECT_LEASE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
    /** Public base URL of the app host (feeds, release downloads, signed download links); unset: SHELF_BASE_URL. */
    SHELF_APP_URL: optionalSetting()
      .pipe(z.url({ protocol: /^https?$/ }).optional())
      .transform((value) => value?.replace(/\/+$/, "")),
    /**
     * The SMTP server account mail (password resets) goes through: `smtp://user:password@host:587` (STARTTLS when the
     * server offers it) or `smtps://...:465`. Unset: each mail is written to outbox/ in the data folder as a `.eml` file.
     */
    SHELF_SMTP_URL: optionalSetting().pipe(z.url({ protocol: /^smtps?$/ }).optional()),
    /** The sender of account mail. */
    SHELF_MAIL_FROM: optionalSetting().pipe(z.string().min(3).max(320).default("Shelf <no-reply@localhost>")),
    /** Where the filesystem artifact store keeps its files; unset: artifacts/ in the data folder. */
    SHELF_ARTIFACTS_DIR: optionalSetting(),
    /** Set: artifacts live in this S3 bucket (several instances), and downloads go to presigned object URLs. */
    SHELF_S3_BUCKET: optionalSetting().pipe(
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "an S3 bucket name")
        .optional(),
    ),
    SHELF_S3_ENDPOINT: optionalSetting().pipe(z.url({ protocol: /^https?$/ }).optional()),
    SHELF_S3_REGION: optionalSetting().pipe(z.string().default("us-east-1")),
    SHELF_S3_ACCESS_KEY_ID: optionalSetting(),
    SHELF_S3_SECRET_ACCESS_KEY: optionalSetting(),
    SHELF_S3_FORCE_PATH_STYLE: z.stringbool().default(false),
    SHELF_S3_PREFIX: optionalSetting().pipe(
      z
        .string()
        .regex(/^[\w./-]*\/$/, "a key prefix ending in /")
        .default(""),
    ),
    /** HMAC key of signed download links, the same on every instance; unset: download-secret in the data folder. */
    SHELF_DOWNLOAD_SECRET: optionalSetting().pipe(z.string().min(32, "at least 32 characters").optional()),
    /** The business disclosure (`GET /api/public/disclosure`): its JSON, or the file that holds it. */
    SHELF_DISCLOSURE: optionalSetting(),
    SHELF_DISCLOSURE_FILE: optionalSetting(),
    /** How long a signed download link (install plans, release downloads) stays valid. */
    SHELF_DOWNLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(600),
  })
  .superRefine((env, context) => {
    if ((env.SHELF_S3_ACCESS_KEY_ID === undefined) !== (env.SHELF_S3_SECRET_ACCESS_KEY === undefined)) {
      context.addIssue({
        code: "custom",
        path: ["SHELF_S3_SECRET_ACCESS_KEY"],
        message: "and SHELF_S3_ACCESS_KEY_ID are set together or not at all",
      });
    }
    if (env.SHELF_SIGNING_KEYS !== undefined && env.SHELF_SIGNING_KEYS_FILE !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["SHELF_SIGNING_KEYS"],
        message: "and SHELF_SIGNING_KEYS_FILE both name the signing key set: set one of them",
      });
    }
    if (env.SHELF_S3_BUCKET === undefined && (env.SHELF_S3_ENDPOINT || env.SHELF_S3_ACCESS_KEY_ID)) {
      context.addIssue({
        code: "custom",
        path: ["SHELF_S3_BUCKET"],
        message: "is required by the other SHELF_S3_ settings",
      });
    }
  });

export type ApiEnv = z.infer<typeof ApiEnv>;

export function readApiEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
  const parsed = ApiEnv.safeParse(env);
  if (!parsed.success) throw new SetupError(envErrorLine(parsed.error));
  return parsed.data;
}

/** Where the signing key set comes from: the environment itself, the file it names, else the data folder. */
export function signingKeySource(env: ApiEnv, dataDir: string): SigningKeySource {
  if (env.SHELF_SIGNING_KEYS !== undefined) return { kind: "inline", text: env.SHELF_SIGNING_KEYS };
  return { kind: "file", path: env.SHELF_SIGNING_KEYS_FILE ?? path.join(dataDir, "signing-keys.json") };
}
