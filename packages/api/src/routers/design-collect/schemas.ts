import {
  captureImageTypes,
  captureOutcomes,
  collectApps,
  collectAssetTypes,
  collectLangs,
  collectRunStatuses,
  collectViewports,
  colorModes,
  galleryFlowKinds,
} from "@shelf/db/enums";
import { parseClientJson, TOO_DEEP } from "@shelf/server/json-text";
import { z } from "zod";
import { CaptureFields } from "../../schemas/capture-fields";
import { CaptureMeta } from "../../schemas/capture-meta";
import { DateTime, hasControlCharacter, IdParam } from "../../schemas/common";
import { UploadedFileSchema } from "../../schemas/upload";

/** The contract's limits of collect runs (section 8): characters for text, bytes for files. */
export const COLLECT_LIMITS = {
  url: 2000,
  assetBytes: 10_240,
  key: 40,
  message: 2000,
  imageBytes: 30_720,
  htmlBytes: 10_240,
  reason: 200,
  buildVersion: 64,
} as const;

/** How long the collection lock is held without an upload, unless the deployment says otherwise. */
export const DEFAULT_COLLECT_LEASE_SECONDS = 600;

/** How many assets one capture may name, and how many accounts and builds a submit may report. */
const MAX_CAPTURE_ASSETS = 500;
const MAX_SUBMIT_ITEMS = 100;
/** The most a meta text may hold: a multipart text field's own limit. */
const MAX_META_CHARACTERS = 65_536;

/** A SHA-256 as lowercase hex; uppercase is taken and lowered. */
export const Sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, { error: "must be a SHA-256 in 64 hex digits" })
  .transform((hex) => hex.toLowerCase());

const Url = z.string().min(1, { error: "must not be empty" }).max(COLLECT_LIMITS.url);

/** Each value once, in the order the enum lists them. */
const uniqueIn =
  <T extends string>(values: readonly T[]) =>
  (chosen: T[]) =>
    values.filter((value) => chosen.includes(value));

export const RunParam = z.object({ run: IdParam });

export const OpenRunInput = z.object({
  /** The apps the collector means to walk; null or absent: all of them. */
  apps: z
    .array(z.enum(collectApps))
    .nullish()
    .transform((apps) => (apps ? uniqueIn(collectApps)(apps) : null)),
  viewports: z
    .array(z.enum(collectViewports))
    .min(1, { error: "name at least one viewport" })
    .transform(uniqueIn(collectViewports)),
  langs: z
    .array(z.enum(collectLangs))
    .min(1, { error: "name at least one language" })
    .transform(uniqueIn(collectLangs)),
});
export type OpenRunInput = z.output<typeof OpenRunInput>;

export const AssetInput = RunParam.extend({
  sha256: Sha256,
  type: z.enum(collectAssetTypes),
  url: Url,
  file: UploadedFileSchema,
});

/** JSON text in a form field, parsed within the edge's nesting limit; a field error when it is not JSON. */
function jsonText(text: string, context: z.RefinementCtx): { value: unknown } | null {
  const parsed = parseClientJson(text);
  if (parsed.ok) return { value: parsed.value };
  context.addIssue({ code: "custom", message: parsed.reason === "too_deep" ? TOO_DEEP : "must be JSON text" });
  return null;
}

/** Issues of a value parsed from JSON text, with their paths under the field's name. */
function reportIssues(issues: readonly z.core.$ZodIssue[], context: z.RefinementCtx) {
  for (const issue of issues) {
    context.addIssue({ code: "custom", message: issue.message, path: issue.path as PropertyKey[] });
  }
}

/** `meta`: JSON text of a CaptureMeta object (every field optional, unknown fields kept as sent). */
export const MetaText = z
  .string()
  .max(MAX_META_CHARACTERS)
  .nullish()
  .transform((text, context): CaptureMeta | null => {
    if (text === null || text === undefined) return null;
    const json = jsonText(text, context);
    if (!json) return z.NEVER;
    const meta = CaptureMeta.safeParse(json.value);
    if (meta.success) return meta.data;
    reportIssues(meta.error.issues, context);
    return z.NEVER;
  })
  .meta({
    description: "JSON text of a `CaptureMeta` object: every field optional, unknown fields kept as sent.",
  });

/** `assets`: JSON text of an array of SHA-256s, each naming an asset already uploaded to this run. */
export const AssetsText = z
  .string()
  .max(MAX_CAPTURE_ASSETS * 70)
  .nullish()
  .transform((text, context): string[] => {
    if (text === null || text === undefined) return [];
    const json = jsonText(text, context);
    if (!json) return z.NEVER;
    const list = z.array(Sha256).max(MAX_CAPTURE_ASSETS).safeParse(json.value);
    if (list.success) return [...new Set(list.data)];
    reportIssues(list.error.issues, context);
    return z.NEVER;
  })
  .meta({
    description: `JSON text of an array of at most ${MAX_CAPTURE_ASSETS} SHA-256s, each an asset already uploaded to this run (an unknown one is 422).`,
  });

export const CaptureInput = RunParam.extend({
  key: z
    .string()
    .length(COLLECT_LIMITS.key, { error: `must be exactly ${COLLECT_LIMITS.key} characters` })
    .refine((key) => !hasControlCharacter(key), { error: "must not contain control characters" }),
  url: Url,
  viewport: z.enum(collectViewports),
  lang: z.enum(collectLangs),
  auth: z.boolean(),
  outcome: z.enum(captureOutcomes),
  message: z.string().max(COLLECT_LIMITS.message).nullish(),
  login_stage: z.boolean().nullish(),
  saved_state: z.boolean().nullish(),
  final_url: Url.nullish(),
  http_status: z.int().min(0).max(999).nullish(),
  meta: MetaText,
  image: UploadedFileSchema,
  html: UploadedFileSchema.nullish(),
  assets: AssetsText,
});

export const FailRunInput = RunParam.extend({
  /** Why the collector gave up. */
  error: z.string().max(COLLECT_LIMITS.message).nullish(),
});

export const SubmitRunInput = RunParam.extend({
  /** Whether each test account the collector signed in with was found, and why not. */
  accounts: z
    .array(z.object({ found: z.boolean(), reason: z.string().max(COLLECT_LIMITS.reason).nullish() }))
    .max(MAX_SUBMIT_ITEMS)
    .nullish(),
  /** The builds of the apps the collector saw (their version strings). */
  build_versions: z.array(z.string().min(1).max(COLLECT_LIMITS.buildVersion)).max(MAX_SUBMIT_ITEMS).nullish(),
});
export type SubmitRunInput = z.output<typeof SubmitRunInput>;

const Counts = z.object({ apps: z.int(), screens: z.int(), flows: z.int() });

export const ReplaySummaryData = z
  .object({ added: Counts, changed: Counts, removed: Counts })
  .meta({ id: "ReplaySummaryData", description: "What the replay did to the gallery's apps, screens and flows." });

const RowCounts = z.object({ add: z.int(), replace: z.int(), retire: z.int() });

export const ReplayPreviewData = z
  .object({
    screens: RowCounts,
    variants: RowCounts,
    flows: z
      .array(
        z.object({
          app: z.string(),
          kind: z.enum(galleryFlowKinds),
          slug: z.string(),
          change: z.enum(["add", "replace", "retire"]),
          steps_before: z.int().nullable(),
          steps_after: z.int().nullable(),
        }),
      )
      .meta({ description: "Each flow it would add, replace with other steps, or retire, with its steps' counts." }),
    retired_variants: z
      .array(
        z.object({
          screen_id: z.int(),
          app: z.string(),
          page: z.string(),
          viewport: z.enum(collectViewports),
          lang: z.enum(collectLangs),
          signed_in: z.boolean(),
          mode: z.enum(colorModes).nullable(),
        }),
      )
      .meta({ description: "The first 100 variants it would take out of the gallery (`variants.retire` counts all)." }),
  })
  .meta({
    id: "ReplayPreviewData",
    description:
      "What submitting the run would do to the gallery as it is now, in rows: screens and variants it would add, replace and retire, and each flow it would change. A run changes only what it captured: pages, states, walks and flows it did not capture stay as they are.",
  });

export const CollectRunData = z
  .object({
    id: z.int(),
    status: z.enum(collectRunStatuses),
    apps: z.array(z.enum(collectApps)).nullable(),
    viewports: z.array(z.enum(collectViewports)),
    langs: z.array(z.enum(collectLangs)),
    /** The opening token's name: tokens of this name see the run. */
    opener: z.string(),
    /** While open: when the collection lock ends unless an upload renews it. */
    lease_expires_at: DateTime,
    error: z.string().nullable(),
    counts: z.object({ captures: z.int(), assets: z.int() }),
    accounts: z.array(z.object({ found: z.boolean(), reason: z.string().nullable() })).nullable(),
    build_versions: z.array(z.string()).nullable(),
    replay: ReplaySummaryData.nullable(),
    /** While open, on its status: what submitting it would do. */
    preview: ReplayPreviewData.nullable(),
    created_at: DateTime,
    submitted_at: DateTime.nullable(),
    finished_at: DateTime.nullable(),
  })
  .meta({ id: "CollectRunData" });
export type CollectRunData = z.infer<typeof CollectRunData>;

export const CollectAssetData = z
  .object({
    id: z.int(),
    sha256: z.string(),
    type: z.enum(collectAssetTypes),
    url: z.string(),
    size: z.int(),
    created_at: DateTime,
  })
  .meta({ id: "CollectAssetData" });
export type CollectAssetData = z.infer<typeof CollectAssetData>;

export const CollectCaptureData = z
  .object({
    id: z.int(),
    ...CaptureFields.shape,
    http_status: z.int().nullable(),
    meta: CaptureMeta.nullable(),
    image: z.object({
      type: z.enum(captureImageTypes),
      width: z.int(),
      height: z.int(),
      size: z.int(),
      sha256: z.string(),
    }),
    html: z.object({ size: z.int(), sha256: z.string() }).nullable(),
    assets: z.array(z.string()),
    created_at: DateTime,
  })
  .meta({ id: "CollectCaptureData" });
export type CollectCaptureData = z.infer<typeof CollectCaptureData>;

export const RunAnswer = z.object({ run: CollectRunData });
export const AssetAnswer = z.object({ asset: CollectAssetData });
export const CaptureAnswer = z.object({ capture: CollectCaptureData });
