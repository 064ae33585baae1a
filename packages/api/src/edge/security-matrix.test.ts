import { createRateLimiter } from "@shelf/server/rate-limit";
import { createAccountApiEdge } from "../account-api";
import { appRouter } from "../root";
import { DEMO_DISCLOSURE } from "../routers/public/disclosure";
import { accountServicesOf, TEST_BASE_URL, TEST_OAUTH_SETTINGS, testLog } from "../testing";
import { describeSecurityMatrix } from "../testing/security-matrix";

describeSecurityMatrix("account API", {
  router: appRouter,
  mcp: ["POST /api/mcp", "DELETE /api/mcp"],
  edge: ({ db }, delivery) =>
    createAccountApiEdge({
      ...accountServicesOf(delivery),
      db,
      baseUrl: TEST_BASE_URL,
      rateLimiter: createRateLimiter({ points: 1_000_000 }),
      log: testLog,
      disclosure: DEMO_DISCLOSURE,
      oauth: TEST_OAUTH_SETTINGS,
    }),
});
