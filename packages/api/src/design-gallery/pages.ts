import { type CollectApp, type CollectLang, collectApps } from "@shelf/db/enums";

/*
 * Which app and which page a capture shows, when its `meta` does not say.
 *
 * App: `meta.app`; else the first label of the URL's host when it names one of the company's apps
 * (`accounts.example.com` is `accounts`); else the URL path's first segment when it names one (`/design/...` is
 * `design`); else the host itself with its port (`localhost:3001`), so an unknown site is still one app.
 *
 * Page: `meta.page`; else the URL's path: without query and fragment, without a trailing slash, without a first
 * segment that is the capture's language (`/en/pricing` and `/ko/pricing` are one page in two languages), and with
 * segments that are ids written as `[id]`: numbers, UUIDs, hex of 8 or more characters with a digit, and tokens of
 * 16 or more letters, digits, `-` or `_` with a letter and at least three digits (`/orders/8f3a.../items/12` is
 * `/orders/[id]/items/[id]`).
 */

const APPS: ReadonlySet<string> = new Set(collectApps);

export function appOf(url: string, metaApp: CollectApp | undefined): string {
  if (metaApp) return metaApp;
  const parsed = parseUrl(url);
  if (!parsed) return "unknown";
  const label = parsed.hostname.split(".")[0] ?? "";
  if (APPS.has(label)) return label;
  const segment = parsed.pathname.split("/")[1] ?? "";
  if (APPS.has(segment)) return segment;
  return parsed.host;
}

/** Scheme, host and port of a URL ("" when it is not one). */
export function originOf(url: string): string {
  return parseUrl(url)?.origin ?? "";
}

export function pageOf(url: string, lang: CollectLang, metaPage: string | undefined): string {
  if (metaPage) return metaPage;
  const parsed = parseUrl(url);
  if (!parsed) return "/";
  const segments = parsed.pathname.split("/").filter((segment) => segment !== "");
  if (segments[0]?.toLowerCase() === lang) segments.shift();
  return `/${segments.map((segment) => (isId(segment) ? "[id]" : segment)).join("/")}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isId(segment: string): boolean {
  if (/^\d+$/.test(segment) || UUID.test(segment)) return true;
  if (/^[0-9a-f]{8,}$/i.test(segment) && /\d/.test(segment)) return true;
  return /^[A-Za-z0-9_-]{16,}$/.test(segment) && /[A-Za-z]/.test(segment) && /(?:\D*\d){3}/.test(segment);
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
