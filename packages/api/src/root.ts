import { distributionRouter } from "./routers/distribution/router";
import { libraryRouter } from "./routers/library/router";
import { productsRouter } from "./routers/products/router";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  library: libraryRouter,
  products: productsRouter,
  distribution: distributionRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
