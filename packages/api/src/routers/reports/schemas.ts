import { errorTypes, supportKinds } from "@shelf/db/enums";
import { z } from "zod";
import { DateTime } from "../../schemas/common";

/** A context object is at most this many bytes of JSON: enough for what an app knows, not a data dump. */
export const MAX_CONTEXT_BYTES = 16 * 1024;

/** Contract section 8: app_bundle_id 255, app_version 50, os_version 50, device_model 100, error_message 10000, stack_trace 50000. */
export const ErrorReportInput = z.object({
  app_bundle_id: z.string().trim().min(1).max(255),
  app_version: z.string().trim().min(1).max(50),
  os_version: z.string().trim().max(50).nullish(),
  device_model: z.string().trim().max(100).nullish(),
  error_type: z.enum(errorTypes),
  error_message: z.string().min(1).max(10_000),
  stack_trace: z.string().max(50_000).nullish(),
  context: z
    .record(z.string(), z.unknown())
    .refine((context) => Buffer.byteLength(JSON.stringify(context)) <= MAX_CONTEXT_BYTES, {
      message: `must be at most ${MAX_CONTEXT_BYTES} bytes of JSON`,
    })
    .nullish(),
});
export type ErrorReportInput = z.infer<typeof ErrorReportInput>;

export const ErrorReportData = z
  .object({
    id: z.number().int(),
    /** Reports of the same error share it: its type, normalised message and top stack frames. */
    fingerprint: z.string(),
    received_at: DateTime,
  })
  .meta({ id: "ErrorReportData" });

/** The size of a support report's diagnostic bundle, at most. */
export const MAX_BUNDLE_BYTES = 10 * 1024 * 1024;

export const SupportReportInput = z.object({
  kind: z.enum(supportKinds),
  summary: z.string().trim().min(1).max(500),
  detail: z.string().trim().min(1).max(20_000),
  app_bundle_id: z.string().trim().min(1).max(255).nullish(),
  app_version: z.string().trim().min(1).max(100).nullish(),
  macos_version: z.string().trim().min(1).max(100).nullish(),
  device_id: z.string().trim().min(1).max(255).nullish(),
});
export type SupportReportInput = z.infer<typeof SupportReportInput>;

export const SupportReportData = z
  .object({
    /** True when this report joined an open ticket about the same problem (answered 200, not 201). */
    deduplicated: z.boolean(),
    ticket: z.object({
      id: z.number().int(),
      kind: z.enum(supportKinds),
      summary: z.string(),
      status: z.string(),
      report_count: z.number().int(),
      created_at: DateTime,
      last_reported_at: DateTime,
    }),
    report: z.object({
      id: z.number().int(),
      bundle: z.object({ size: z.number().int(), sha256: z.string(), filename: z.string().nullable() }).nullable(),
    }),
  })
  .meta({ id: "SupportReportData" });
export type SupportReportData = z.infer<typeof SupportReportData>;

export const WithdrawInput = z.object({
  order: z.number().int().positive(),
  reason: z.string().trim().max(10_000).optional(),
});
