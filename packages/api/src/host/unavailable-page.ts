import { readFileSync } from "node:fs";
import type http from "node:http";
import path from "node:path";
import { LOCALE_COOKIE, type Locale, locales, resolveLocale } from "./locale";

/** Seconds a browser or a proxy should wait before asking again; the health monitor probes every second. */
const RETRY_AFTER_SECONDS = 5;

/** Paths Next serves without the database: its build's files and the public folder's (a name with an extension). */
export function servedWithoutDatabase(path: string): boolean {
  return path.startsWith("/_next/") || /\.[A-Za-z0-9]+$/.test(path);
}

export type UnavailablePage = {
  /**
   * The page for a request that cannot be served while the database does not answer: 503 in the reader's language,
   * written by the server itself, since a page render would wait for the database.
   */
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
};

const localeCookie = new RegExp(`(?:^|;\\s*)${LOCALE_COOKIE}=([^;]*)`);

/** An app's outage page, in the words of its own messages (`<messagesDir>/<locale>.json`, key `unavailable`). */
export function createUnavailablePage(messagesDir: string): UnavailablePage {
  const words = Object.fromEntries(
    locales.map((locale) => [
      locale,
      JSON.parse(readFileSync(path.join(messagesDir, `${locale}.json`), "utf8")).unavailable,
    ]),
  ) as Record<Locale, { title: string; body: string }>;
  return {
    answer: (req, res) => {
      const locale = resolveLocale(
        localeCookie.exec(req.headers.cookie ?? "")?.[1],
        req.headers["accept-language"] ?? null,
      );
      const { title, body } = words[locale];
      const html = `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body><main><h1>${title}</h1><p>${body}</p></main></body>
</html>`;
      res.writeHead(503, {
        "content-type": "text/html; charset=utf-8",
        "content-length": Buffer.byteLength(html),
        "cache-control": "no-store",
        "retry-after": String(RETRY_AFTER_SECONDS),
      });
      res.end(req.method === "HEAD" ? undefined : html);
    },
  };
}

/**
 * The status for a render that failed while the database stopped answering: 503 with `Retry-After`, like the page
 * above, instead of the 500 of a bug (Next's own error page is still what the reader sees).
 */
export function unavailableStatus(res: http.ServerResponse): number {
  res.setHeader("retry-after", String(RETRY_AFTER_SECONDS));
  res.setHeader("cache-control", "no-store");
  return 503;
}
