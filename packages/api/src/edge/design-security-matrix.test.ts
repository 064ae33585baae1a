import { createRateLimiter } from "@shelf/server/rate-limit";
import { createDesignApiEdge, designRouter } from "../design-api";
import { TEST_BASE_URL, testLog } from "../testing";
import { describeDesignSecurityMatrix } from "../testing/design-security-matrix";

describeDesignSecurityMatrix("design agent API", {
  router: designRouter,
  mcp: ["POST /mcp"],
  edge: ({ db }, delivery) =>
    createDesignApiEdge({
      db,
      delivery,
      baseUrl: TEST_BASE_URL,
      rateLimiter: createRateLimiter({ points: 1_000_000 }),
      log: testLog,
    }),
});
