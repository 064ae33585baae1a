import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { getTRPCErrorFromUnknown, middlewareMarker } from "@trpc/server/unstable-core-do-not-import";
import type { Context } from "../context";
import type { Meta } from "../trpc";

/** One level of a procedure's chain, as tRPC's builders make them (the caller's check, input, output, resolver). */
type Level = (opts: {
  ctx: unknown;
  type: string;
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  meta: Meta | undefined;
  signal: undefined;
  batchIndex: number;
  next: (opts?: { ctx?: object; input?: unknown; getRawInput?: () => Promise<unknown> }) => Promise<Result>;
}) => Promise<Result>;
type Result = { ok: boolean; data?: unknown; error?: unknown; marker: unknown };

export type DirectCall = (ctx: Context, getRawInput: () => Promise<unknown>) => Promise<unknown>;

/**
 * A procedure called as tRPC calls it, minus tRPC's generic runner: the very levels of its chain (`_def.middlewares`:
 * the caller middleware with `authorize`, the input schema, `productProcedure`'s scope and entitlement checks, the
 * output schema, the resolver), in their order, with tRPC's rules for what `next` passes on and how a throw becomes
 * a failed result. What it leaves out is the cost: tRPC's runner copies its options and the whole context with a
 * transpiled object spread at every level (about 15 µs a level); here a level's options are one literal and the
 * context is copied only when a level adds to it. The REST edge calls procedures this way; `createCaller` (MCP
 * tools, tests) keeps tRPC's own, and a test sends the same table of requests down both.
 */
export function directCall(router: AnyRouter, path: string): DirectCall {
  const procedure = (router._def.procedures as Record<string, AnyProcedure | undefined>)[path];
  if (!procedure) throw new Error(`No procedure at ${path}.`);
  const { middlewares, meta, type } = procedure._def as unknown as {
    middlewares: Level[];
    meta: Meta | undefined;
    type: string;
  };

  async function level(
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: () => Promise<unknown>,
  ): Promise<Result> {
    try {
      const middleware = middlewares[index] as Level;
      return await middleware({
        ctx,
        type,
        path,
        input,
        getRawInput,
        meta,
        signal: undefined,
        batchIndex: 0,
        next: (next) =>
          level(
            index + 1,
            next?.ctx ? { ...(ctx as object), ...next.ctx } : ctx,
            next && "input" in next ? next.input : input,
            next?.getRawInput ?? getRawInput,
          ),
      });
    } catch (cause) {
      return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker };
    }
  }

  return async (ctx, getRawInput) => {
    const result = await level(0, ctx, undefined, getRawInput);
    if (!result.ok) throw result.error;
    return result.data;
  };
}
