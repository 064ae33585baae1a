/**
 * A server on a loopback address is reached under each loopback name alike: `localhost`, `127.0.0.1`, `[::1]`. A host
 * checks that the resource metadata names the very URL it was given (RFC 9728 3.3), so for such a server the 401's
 * challenge and the metadata name the address the request came to, and the authorization server takes the resource
 * under any of these names as the one configured.
 */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isLoopbackAlias(configured: URL, other: URL): boolean {
  return (
    LOOPBACK.has(configured.hostname) &&
    LOOPBACK.has(other.hostname) &&
    configured.protocol === other.protocol &&
    configured.port === other.port &&
    other.username === "" &&
    other.password === ""
  );
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The origin to name to a request for this configured URL: the loopback name its `Host` used, else the configured one. */
export function askedOrigin(configured: URL, host: string | undefined): string {
  const asked = host === undefined ? null : parse(`${configured.protocol}//${host}`);
  return asked && isLoopbackAlias(configured, asked) ? asked.origin : configured.origin;
}

/** A resource a client names: the configured resource when it names that under another loopback name, else as given. */
export function configuredResource(resource: string, named: string): string {
  const configured = new URL(resource);
  const url = parse(named);
  const alias =
    url !== null &&
    isLoopbackAlias(configured, url) &&
    url.pathname === configured.pathname &&
    url.search === "" &&
    url.hash === "";
  return alias ? resource : named;
}
