import { commerceView, getOrder } from "../../commerce/orders";
import { DomainError } from "../../errors";
import { accountProcedure, publicProcedure, sessionProcedure } from "../../procedures";
import { UploadedFileSchema } from "../../schemas/upload";
import { router } from "../../trpc";
import { recordErrorReport } from "./crash-reports";
import {
  ErrorReportData,
  ErrorReportInput,
  MAX_BUNDLE_BYTES,
  MAX_CONTEXT_BYTES,
  SupportReportData,
  SupportReportInput,
  WithdrawInput,
} from "./schemas";
import { DEDUP_WINDOW_HOURS, recordSupportReport } from "./support";
import { alreadyRequested, fileWithdrawal } from "./withdrawal";

const tags = ["support"];

/** Crash reports an address may send a minute (contract section 8). */
export const ERROR_REPORTS_PER_MINUTE = 5;

export const reportsRouter = router({
  error: publicProcedure
    .meta({
      ability: "public",
      successStatus: 201,
      addressLimit: { name: "error-reports", perMinute: ERROR_REPORTS_PER_MINUTE },
      openapi: {
        method: "POST",
        path: "/api/error-reports",
        tags,
        summary: "Report a crash or an exception (no key)",
        description: `At most ${ERROR_REPORTS_PER_MINUTE} a minute from one address (then 429), counted across instances. Text limits: app_bundle_id 255, app_version 50, os_version 50, device_model 100, error_message 10000, stack_trace 50000 characters; \`context\` at most ${MAX_CONTEXT_BYTES} bytes of JSON. Reports of the same error (type, normalised message, top three stack frames) share a \`fingerprint\`.`,
      },
      example: {
        build: () => ({
          body: {
            app_bundle_id: "com.example.matrix",
            app_version: "1.0.0",
            error_type: "crash",
            error_message: "EXC_BAD_ACCESS at 0x0",
          },
        }),
      },
    })
    .input(ErrorReportInput)
    .output(ErrorReportData)
    .mutation(({ ctx, input }) => recordErrorReport(ctx.db, input)),

  support: accountProcedure
    .meta({
      ability: "support.report",
      successStatus: 201,
      alternateSuccess: {
        status: 200,
        description: `The same problem was reported less than ${DEDUP_WINDOW_HOURS} hours ago: this report joined its ticket`,
      },
      multipart: { files: { bundle: { maxBytes: MAX_BUNDLE_BYTES } } },
      openapi: {
        method: "POST",
        path: "/api/support/reports",
        tags,
        summary: "Report a problem",
        description: `JSON, or multipart/form-data with a diagnostic \`bundle\` file of at most ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB. A new problem opens a ticket (201); the same problem again within ${DEDUP_WINDOW_HOURS} hours of its ticket's last report joins that ticket (200, \`deduplicated\`). The same problem: the same account, \`kind\`, \`app_bundle_id\` and summary (compared case-insensitively, ignoring spacing and trailing punctuation), on a ticket still open.`,
      },
      example: {
        build: () => ({ body: { kind: "app_report", summary: "The window flickers", detail: "On resize." } }),
      },
    })
    .input(SupportReportInput.extend({ bundle: UploadedFileSchema.nullish() }))
    .output(SupportReportData)
    .mutation(async ({ ctx, input }) => {
      if (ctx.caller.type !== "api_key") throw new DomainError("invalid_api_key");
      const answer = await recordSupportReport(ctx.db, ctx.delivery.store, ctx.caller, input);
      ctx.res.status = answer.deduplicated ? 200 : 201;
      return answer;
    }),

  /**
   * The billing page's "withdraw": a refund request (a support report of kind `refund_request`) for an order of the
   * signed-in person that `can_withdraw`, once; another account's order is not found, one past the period a conflict,
   * one already withdrawn from `withdrawal_already_requested` (with the first request's date).
   */
  withdraw: sessionProcedure
    .meta({ ability: "signed-in" })
    .input(WithdrawInput)
    .output(SupportReportData)
    .mutation(async ({ ctx, input }) => {
      const { order } = await getOrder(ctx.db, ctx.caller, commerceView(ctx), input.order);
      if (order.withdrawal_requested_at) throw alreadyRequested(order.withdrawal_requested_at);
      if (!order.can_withdraw) throw new DomainError("conflict", "This order can no longer be withdrawn from.");
      return fileWithdrawal(ctx.db, ctx.caller, order, input.reason);
    }),
});
