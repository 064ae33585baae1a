import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";

type PageAnswer = {
  status?: number;
  /** The render could not get what it needed from the database (a lookup past its deadline): an outage, not a bug. */
  databaseUnavailable?: boolean;
};

// Next loads its own copy of this module for the pages: the store travels on globalThis, like the runtime.
const KEY = Symbol.for("shelf.page-status");
type Holder = { [KEY]?: AsyncLocalStorage<PageAnswer> };

function store(): AsyncLocalStorage<PageAnswer> {
  const holder = globalThis as Holder;
  holder[KEY] ??= new AsyncLocalStorage<PageAnswer>();
  return holder[KEY];
}

/**
 * Runs Next's handling of one page request so that the page can choose the answer's status. App Router pages render
 * with 200 (or 404, 500); a page that shows an error (a refused OAuth request, a database outage) must still answer
 * with the error's status, which `setPageStatus` records and the status line then carries.
 */
export function withPageStatus<T>(
  res: ServerResponse,
  handle: () => Promise<T>,
  /**
   * The server's last word on the status, e.g. an outage's 503 for a render that failed with a 500 while the
   * database was down or after `setPageDatabaseUnavailable`.
   */
  settle: (status: number, answer: Readonly<PageAnswer>) => number = (status) => status,
): Promise<T> {
  const answer: PageAnswer = {};
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    const status = settle(statusCode === 200 && answer.status ? answer.status : statusCode, answer);
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse["writeHead"];
  return store().run(answer, handle);
}

/** Called while a page renders: its answer goes out with this status instead of 200. */
export function setPageStatus(status: number): void {
  const answer = store().getStore();
  if (answer) answer.status = status;
}

/**
 * Called while a page renders, before it fails because the database did not answer (a session lookup past its
 * deadline): its failure is then answered as an outage (503 with Retry-After), even while the health monitor still
 * thinks the database is up.
 */
export function setPageDatabaseUnavailable(): void {
  const answer = store().getStore();
  if (answer) answer.databaseUnavailable = true;
}
