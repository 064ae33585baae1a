import type { AnyCaller, Credential } from "../auth/caller";
import { DomainError, toTrpcError, ValidationError } from "../errors";
import { type Meta, middleware } from "../trpc";

/** A domain error as tRPC carries it (the right tRPC code, the DomainError as cause); anything else as it is. */
function domainErrorAsTrpc(error: unknown): unknown {
  return error instanceof DomainError || error instanceof ValidationError ? toTrpcError(error) : error;
}

/**
 * The first and only middleware of every procedure builder: decides who may call (`authorize`), then runs the rest
 * of the chain and keeps the meaning of domain errors raised anywhere in it. One middleware rather than two: each
 * level of tRPC's chain copies its options and context (about 15 µs a level, measured with the licensing benchmark).
 */
export function callerMiddleware<C extends AnyCaller | null>(
  decide: (meta: Meta | undefined, credential: Credential) => C,
) {
  return middleware(async ({ ctx, meta, next }) => {
    let caller: C;
    try {
      caller = decide(meta, ctx.credential);
    } catch (error) {
      throw domainErrorAsTrpc(error);
    }
    const result = await next({ ctx: { caller } });
    if (!result.ok && (result.error.cause instanceof DomainError || result.error.cause instanceof ValidationError)) {
      result.error = toTrpcError(result.error.cause);
    }
    return result;
  });
}
