import { middleware } from "../trpc";

/** A procedure that delivers files: the entry point must have given it the artifact store and links. */
export const requireDelivery = middleware(({ ctx, next }) => {
  if (!ctx.delivery) throw new Error("This entry point was built without delivery (artifact store, links, signing).");
  return next({ ctx: { delivery: ctx.delivery } });
});

/** A procedure that signs (license certificates, the client policy): the entry point's key set. */
export const requireSigning = middleware(({ ctx, next }) => {
  if (!ctx.delivery) throw new Error("This entry point was built without delivery (artifact store, links, signing).");
  return next({ ctx: { keyring: ctx.delivery.keyring } });
});
