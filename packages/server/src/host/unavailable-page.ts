import type http from "node:http";

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

/** What the outage page says to one reader: the page's language (its `lang`), its title and its one paragraph. */
export type UnavailableWords = { language: string; title: string; body: string };

/**
 * An outage page in words the host picks for each request: which languages it speaks and where their words are
 * written is the host's, the answer (503, `Retry-After`, never stored) is the same for every host.
 */
export function unavailablePage(wordsFor: (req: http.IncomingMessage) => UnavailableWords): UnavailablePage {
  return {
    answer: (req, res) => {
      const { language, title, body } = wordsFor(req);
      const html = `<!doctype html>
<html lang="${language}">
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
