import { databaseDown, databaseUnavailable } from "@shelf/db";
import type { Logger } from "../log";
import { type EdgeResult, errorResult, errorToResponse, jsonResult } from "./results";

/** What the edge needs to know of the database's health (see @shelf/db/server createDatabaseHealth). */
export type HealthSignal = { readonly up: boolean; reportFailure: (reason: string) => void };

/** What a client is told to wait after a 503: about two probes of the database. */
const RETRY_AFTER_SECONDS = 2;

/**
 * Whatever went wrong, as the contract's answer, for any edge. A database that cannot answer is a 503 the client
 * may retry (and, if it is down rather than slow, tells the health monitor); anything else unexpected is a logged
 * 500.
 */
export function failureResult(
  error: unknown,
  context: { log: Logger; health?: HealthSignal; requestId: string },
): EdgeResult {
  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    if (databaseDown(unavailable)) context.health?.reportFailure(unavailable);
    context.log.warn({ reqId: context.requestId, reason: unavailable }, "database unavailable");
    return unavailableResult();
  }
  const mapped = errorToResponse(error);
  if (mapped.unexpected) context.log.error({ reqId: context.requestId, err: error }, "unexpected error");
  return jsonResult(mapped.status, mapped.body);
}

/** 503 while the database cannot answer, with how long to wait. */
export function unavailableResult(): EdgeResult {
  return errorResult("service_unavailable", undefined, { "retry-after": String(RETRY_AFTER_SECONDS) });
}
