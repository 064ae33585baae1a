import { z } from "zod";
import { DomainError } from "../errors";
import { findProductAccess, type ProductAccess } from "../product-access";
import { IdParam } from "../schemas/common";
import { accountProcedure } from "./account";

/**
 * A procedure about one `{product}`: product scope (403; with `meta.keyScope` only the product's own keys), then
 * existence (404), then the access rule the procedure declares in `meta.product` (`visible` or `entitled`); a
 * procedure that declares none is refused.
 */
export const productProcedure = accountProcedure
  .input(z.object({ product: IdParam }))
  .use(async ({ ctx, meta, input, next }) => {
    const { caller } = ctx;
    if (caller.productId !== null && caller.productId !== input.product) {
      throw new DomainError("product_api_key_scope_required");
    }
    if (meta?.keyScope === "product" && caller.productId === null) {
      throw new DomainError("product_api_key_scope_required", "Only a key scoped to this product may call this.");
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
    if (access.contentLocale) ctx.res.headers["content-language"] = access.contentLocale;
    return next({ ctx: { product: access satisfies ProductAccess } });
  });
