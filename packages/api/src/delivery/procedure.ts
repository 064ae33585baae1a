import type { Context } from "../context";
import type { Delivery } from "./index";

/**
 * The delivery services (artifact store, links, signing keys) of the entry point that called: a procedure that
 * delivers files or signs asks for them here. A plain function rather than a middleware, which would cost a level of
 * tRPC's chain on every such request.
 */
export function deliveryOf(ctx: Pick<Context, "delivery">): Delivery {
  if (!ctx.delivery) throw new Error("This entry point was built without delivery (artifact store, links, signing).");
  return ctx.delivery;
}
