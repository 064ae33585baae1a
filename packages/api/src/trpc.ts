import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { z } from "zod";
import type { AccountAbility } from "./abilities";
import type { Caller } from "./auth/caller";
import type { Context } from "./context";
import { DomainError, toTrpcError, ValidationError } from "./errors";
import { findProductAccess, type ProductAccess } from "./routers/products/access";

export type RestMeta = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below /api, like the OpenAPI paths, with `{param}` segments. */
  path: string;
  /** Response content type of a plain route (CSS, files): what OpenAPI's JSON handler cannot answer. */
  contentType: string;
  summary: string;
  tags: string[];
};

export type Meta = OpenApiMeta & {
  /**
   * What the caller must hold. An ability: a valid account key with it. `any-key`: any valid account key.
   * `public`: nothing. A procedure that declares nothing is refused to everyone (default-deny).
   */
  ability?: AccountAbility | "any-key" | "public";
  /** For procedures with a `{product}` input: `visible` hides unpublished products from accounts without access. */
  product?: "visible" | "entitled";
  /** HTTP status of success, when it is not 200. */
  successStatus?: 201 | 202 | 204;
  /** A plain (non-JSON) REST route served by the REST dispatcher through the same procedure. */
  rest?: RestMeta;
};

const t = initTRPC.context<Context>().meta<Meta>().create();

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Domain errors keep their meaning through tRPC: the right tRPC code, the DomainError as cause. */
const domainErrorsToTrpc = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && (result.error.cause instanceof DomainError || result.error.cause instanceof ValidationError)) {
    result.error = toTrpcError(result.error.cause);
  }
  return result;
});

/**
 * Runs before the input is parsed and before any target is looked up, so a key without the ability gets 403,
 * never 404 or 422 (contract 5.9).
 */
function authorize(meta: Meta | undefined, ctx: Context): Caller | null {
  const required = meta?.ability;
  if (required === "public") return ctx.credential.status === "valid" ? ctx.credential.caller : null;
  if (ctx.credential.status === "none") throw new DomainError("missing_api_key");
  if (ctx.credential.status === "invalid") throw new DomainError("invalid_api_key");
  const caller = ctx.credential.caller;
  if (required === undefined)
    throw new DomainError("missing_api_key_ability", "This endpoint is not open to API keys.");
  if (required !== "any-key" && !caller.abilities.has(required)) {
    throw new DomainError("missing_api_key_ability", `The API key lacks the ${required} ability.`);
  }
  return caller;
}

const base = t.procedure.use(domainErrorsToTrpc);

export const publicProcedure = base.use(({ ctx, meta, next }) => {
  if (meta?.ability !== "public") throw new DomainError("missing_api_key_ability", "This endpoint is not public.");
  return next({ ctx: { caller: authorize(meta, ctx) } });
});

export const accountProcedure = base.use(({ ctx, meta, next }) => {
  const caller = authorize(meta, ctx);
  if (!caller) throw new DomainError("missing_api_key");
  return next({ ctx: { caller } });
});

/** Path parameters are integers (contract section 4); anything else is a validation failure. */
export const IdParam = z
  .number({ error: "must be an integer" })
  .int({ error: "must be an integer" })
  .min(1, { error: "must be at least 1" })
  .max(2_147_483_647, { error: "must be at most 2147483647" });

export const productProcedure = accountProcedure
  .input(z.object({ product: IdParam }))
  .use(async ({ ctx, meta, input, next }) => {
    const { caller } = ctx;
    if (caller.productId !== null && caller.productId !== input.product) {
      throw new DomainError("product_api_key_scope_required");
    }
    const access = await findProductAccess(ctx.db, caller.accountId, input.product);
    if (!access) throw new DomainError("not_found", "Product not found.");
    const requirement = meta?.product;
    if (requirement === "entitled") {
      if (!access.entitlement) throw new DomainError("product_entitlement_required");
    } else if (requirement === "visible") {
      if (!access.published && !access.entitlement) throw new DomainError("not_found", "Product not found.");
    } else {
      throw new DomainError("missing_api_key_ability", "This endpoint declares no product access rule.");
    }
    if (access.contentLocale) ctx.res.headers["Content-Language"] = access.contentLocale;
    return next({ ctx: { product: access satisfies ProductAccess } });
  });
