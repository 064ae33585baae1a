import type { EdgeRequest } from "./request";

/**
 * The older front host forwards `/api/...` to the API with only these headers (contract 5.1): the credential, the
 * body's type, content negotiation, the client's name, and `X-*` headers. Cookies and everything else stay behind.
 */
const FORWARDED = new Set(["authorization", "content-type", "accept", "accept-language", "user-agent"]);

export function isForwardedHeader(name: string): boolean {
  return FORWARDED.has(name) || name.startsWith("x-");
}

/** A request as the legacy host hands it on: the same request, with only the forwarded headers. */
export function forwardedRequest(request: EdgeRequest): EdgeRequest {
  return { ...request, header: (name) => (isForwardedHeader(name) ? request.header(name) : undefined) };
}

/**
 * The `Host` values that name a host, from its origin: `legacy.example.com` and, where the origin has no port of its
 * own, also with the scheme's default port written out (`legacy.example.com:443`), lower case.
 */
export function hostNames(origin: string): string[] {
  const url = new URL(origin);
  const host = url.host.toLowerCase();
  if (url.port) return [host];
  return [host, `${host}:${url.protocol === "https:" ? 443 : 80}`];
}

/** The host names a request may name: the base URL's, those configured, and the loopback names of a loopback base. */
export function allowedHostsFor(base: URL, extra: readonly string[]): Set<string> {
  const loopback = ["localhost", "127.0.0.1", "[::1]"];
  const names = loopback.includes(base.hostname) ? loopback : [base.hostname];
  const port = base.port ? `:${base.port}` : "";
  // hostNames: each as a Host header may write it, the scheme's default port spelled out or not.
  const own = names.flatMap((name) => hostNames(`${base.protocol}//${name}${port}`));
  return new Set([...own, ...extra.map((host) => host.toLowerCase())]);
}

/** Whether a request's Host and Origin name this server (a page elsewhere reaching it through a name it resolves). */
export function sameOrigin(request: EdgeRequest, hosts: Set<string>, base: URL): boolean {
  const host = request.header("host")?.toLowerCase();
  const origin = request.header("origin")?.toLowerCase();
  if (!host || !hosts.has(host)) return false;
  return origin === undefined || [...hosts].some((name) => origin === `${base.protocol}//${name}`);
}
