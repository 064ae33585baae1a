import { shelfNextConfig } from "@shelf/web-kit/next-config";

/** Where the pages that were under /settings live now (a 308 keeps the query, `?before=` of the log included). */
const MOVED_TO_ACCOUNT: Record<string, string> = {
  "/settings/security": "/account/profile",
  "/settings/sessions": "/account/sessions",
  "/settings/security-log": "/account/security-log",
  "/settings/delete-account": "/account/delete",
};

export default shelfNextConfig({
  // PDFKit reads its own data files (the standard fonts' metrics) from its folder at run time.
  serverExternalPackages: ["pdfkit"],
  // The account's own pages moved out of developer settings: old links, bookmarks and mails still arrive.
  async redirects() {
    return Object.entries(MOVED_TO_ACCOUNT).map(([source, destination]) => ({ source, destination, permanent: true }));
  },
  // An invoice's PDF sits beside its page, at the same address with `.pdf`.
  rewrites: async () => [
    { source: "/account/billing/invoices/:id(\\d+).pdf", destination: "/account/billing/invoices/:id/pdf" },
  ],
});
