import { randomBytes } from "node:crypto";
import type http from "node:http";
import { clientAddressOf } from "../edge/address";
import { API_REFERENCE_PATH } from "./api-reference";
import { CLIENT_ADDRESS_HEADER, NONCE_HEADER } from "./headers";

/** Headers the server sets on requests for Next: a client may never send its own. */
const SERVER_SET = [CLIENT_ADDRESS_HEADER, NONCE_HEADER, "content-security-policy"];

/**
 * The policy of a page: scripts only with this request's nonce (Next puts it on its own scripts, read from the
 * request's CSP header) and what they load; no plugin, no base, no framing, forms only to this site.
 */
export function contentSecurityPolicy(
  nonce: string,
  options: { path: string; dev: boolean; formTargets?: readonly string[] },
): string {
  // The API reference's renderer (Scalar) adds its own style elements at run time.
  const styles = options.path === API_REFERENCE_PATH ? "'self' 'unsafe-inline'" : `'self' 'nonce-${nonce}'`;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    `style-src ${styles}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${options.dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    ["form-action 'self'", ...(options.formTargets ?? [])].join(" "),
    "frame-ancestors 'none'",
  ].join("; ");
}

export type PageHeaderOptions = {
  trustProxy?: boolean;
  dev: boolean;
  https?: boolean;
  /** Origins a page's forms may lead to besides this site, by path and request target (an app's own pages). */
  formTargets?: (path: string, target: string) => readonly string[];
};

/**
 * Sets what every page answer of every app carries (CSP with a fresh nonce, no framing, no sniffing, no referrer)
 * and tells Next the request's nonce and client address through request headers only the server can set.
 */
export function pageHeaders(req: http.IncomingMessage, res: http.ServerResponse, options: PageHeaderOptions): void {
  for (const name of SERVER_SET) delete req.headers[name];
  const nonce = randomBytes(16).toString("base64");
  const path = (req.url ?? "/").split("?", 1)[0] as string;
  const policy = contentSecurityPolicy(nonce, {
    path,
    dev: options.dev,
    formTargets: options.formTargets?.(path, req.url ?? "/") ?? [],
  });
  const forwarded = req.headers["x-forwarded-for"];
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddressOf(
    Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
    req.socket.remoteAddress,
    options.trustProxy,
  );
  req.headers[NONCE_HEADER] = nonce;
  req.headers["content-security-policy"] = policy;
  res.setHeader("Content-Security-Policy", policy);
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("X-Content-Type-Options", "nosniff");
  // Not no-referrer: browsers would then send `Origin: null` on the pages' own POSTs, which Next refuses.
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  if (options.https) res.setHeader("Strict-Transport-Security", "max-age=31536000");
}
