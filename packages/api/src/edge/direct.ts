import type { AnyProcedure, AnyRouter } from "@trpc/server";
import {
  getParseFn,
  getTRPCErrorFromUnknown,
  isObject,
  middlewareMarker,
  TRPCError,
} from "@trpc/server/unstable-core-do-not-import";
import type { BaseContext } from "../context";
import type { Meta } from "../trpc";

type Result = { ok: boolean; data?: unknown; error?: unknown; marker: unknown; ctx?: unknown };
type NextOptions = { ctx?: object; input?: unknown; getRawInput?: () => Promise<unknown> };
/** What tRPC hands a level of a procedure's chain (a middleware, or the resolver without `next`). */
type LevelOptions = {
  ctx: unknown;
  type: string;
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  meta: Meta | undefined;
  signal: undefined;
  batchIndex: number;
};
/** A middleware of a procedure's chain as tRPC's builders make them; validators carry `_type`. */
type Middleware = ((opts: LevelOptions & { next: (opts?: NextOptions) => Promise<Result> }) => Promise<Result>) & {
  _type?: string;
};
type Resolver = (opts: LevelOptions) => unknown;
type Parse = (value: unknown) => unknown;

/** One level of the chain, as the direct call runs it. */
type Step =
  | { kind: "middleware"; run: Middleware }
  | { kind: "input"; parse: Parse }
  | { kind: "output"; parse: Parse }
  | { kind: "resolve"; resolver: Resolver };

export type DirectCall = (ctx: BaseContext, getRawInput: () => Promise<unknown>) => Promise<unknown>;

/**
 * A procedure called as tRPC calls it, minus tRPC's generic runner. The procedure's own middlewares (the caller
 * middleware with `authorize`, `productProcedure`'s scope and entitlement checks) run as tRPC runs them, with its
 * rules for what `next` passes on and how a throw becomes a failed result; the input and output schemas and the
 * resolver, which tRPC also wraps as middlewares, are run in place: the same parse functions (`getParseFn`, sync
 * when the schema is), the same input merging, the same errors (BAD_REQUEST for an input, "Output validation failed"
 * for an output). What it leaves out is the cost: tRPC's runner copies its options and the whole context with a
 * transpiled object spread at every level, and each validator is one more awaited level; here a level's options are
 * one literal and the context is copied only when a level adds to it. The REST edge calls procedures this way;
 * `createCaller` (MCP tools, tests) keeps tRPC's own, and a test sends the same table of requests down both.
 */
export function directCall(router: AnyRouter, path: string): DirectCall {
  const procedure = (router._def.procedures as Record<string, AnyProcedure | undefined>)[path];
  if (!procedure) throw new Error(`No procedure at ${path}.`);
  const { middlewares, meta, type, inputs, output, resolver } = procedure._def as unknown as {
    middlewares: Middleware[];
    meta: Meta | undefined;
    type: string;
    inputs: unknown[];
    output: unknown;
    resolver: Resolver;
  };
  // tRPC adds one input middleware per `.input()`, in order, one output middleware for `.output()`, and the
  // resolver's as the last.
  let nextInput = 0;
  const steps: Step[] = middlewares.map((middleware, index): Step => {
    if (index === middlewares.length - 1) return { kind: "resolve", resolver };
    if (middleware._type === "input") return { kind: "input", parse: getParseFn(inputs[nextInput++] as never) };
    if (middleware._type === "output") return { kind: "output", parse: getParseFn(output as never) };
    return { kind: "middleware", run: middleware };
  });
  if (nextInput !== inputs.length) throw new Error(`${path}: its input middlewares and schemas do not match.`);

  async function level(
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: () => Promise<unknown>,
  ): Promise<Result> {
    try {
      let step = steps[index] as Step;
      // Inputs are parsed in place, one after another, as their middlewares would.
      while (step.kind === "input") {
        const raw = await getRawInput();
        let parsed: unknown;
        try {
          parsed = step.parse(raw);
          if (parsed instanceof Promise) parsed = await parsed;
        } catch (cause) {
          throw new TRPCError({ code: "BAD_REQUEST", cause });
        }
        input = isObject(input) && isObject(parsed) ? { ...input, ...parsed } : parsed;
        step = steps[++index] as Step;
      }
      switch (step.kind) {
        case "resolve": {
          const data = await step.resolver({
            ctx,
            type,
            path,
            input,
            getRawInput,
            meta,
            signal: undefined,
            batchIndex: 0,
          });
          return { marker: middlewareMarker, ok: true, data, ctx };
        }
        case "output": {
          const result = await level(index + 1, ctx, input, getRawInput);
          if (!result.ok) return result;
          try {
            let data = step.parse(result.data);
            if (data instanceof Promise) data = await data;
            return { ...result, data };
          } catch (cause) {
            throw new TRPCError({ message: "Output validation failed", code: "INTERNAL_SERVER_ERROR", cause });
          }
        }
        case "middleware":
          return await step.run({
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
      }
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
