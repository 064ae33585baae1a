import { middleware } from "../trpc";

/** A procedure that delivers files: the entry point must have given it the artifact store and links. */
export const requireDelivery = middleware(({ ctx, next }) => {
  if (!ctx.delivery) throw new Error("This entry point was built without delivery (artifact store, links, signing).");
  return next({ ctx: { delivery: ctx.delivery } });
});
