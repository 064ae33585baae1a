import { accountRouter } from "./routers/accounts/router";
import { clientConfigRouter } from "./routers/client-config/router";
import { connectedAppsRouter } from "./routers/connected-apps/router";
import { deviceSignInRouter } from "./routers/device-sign-in/router";
import { devicesRouter } from "./routers/devices/router";
import { distributionRouter } from "./routers/distribution/router";
import { keysRouter } from "./routers/keys/router";
import { libraryRouter } from "./routers/library/router";
import { licensingRouter } from "./routers/licensing/router";
import { mcpRouter } from "./routers/mcp/router";
import { oauthRouter } from "./routers/oauth/router";
import { ordersRouter } from "./routers/orders/router";
import { productsRouter } from "./routers/products/router";
import { publicRouter } from "./routers/public/router";
import { reportsRouter } from "./routers/reports/router";
import { securityLogRouter } from "./routers/security-log/router";
import { sessionsRouter } from "./routers/sessions/router";
import { setupRouter } from "./routers/setup/router";
import { subscriptionsRouter } from "./routers/subscriptions/router";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  library: libraryRouter,
  products: productsRouter,
  distribution: distributionRouter,
  license: licensingRouter,
  setup: setupRouter,
  device: devicesRouter,
  clientConfig: clientConfigRouter,
  orders: ordersRouter,
  subscriptions: subscriptionsRouter,
  reports: reportsRouter,
  public: publicRouter,
  deviceSignIn: deviceSignInRouter,
  oauth: oauthRouter,
  mcp: mcpRouter,
  // The account pages' own procedures: a signed-in person only, never over REST.
  account: accountRouter,
  keys: keysRouter,
  connectedApps: connectedAppsRouter,
  securityLog: securityLogRouter,
  sessions: sessionsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
