/**
 * The client's address: the socket's peer, or, behind a proxy you run (`SHELF_TRUST_PROXY`), the last address that
 * proxy appended to X-Forwarded-For (earlier entries are whatever the client claimed).
 */
export function clientAddressOf(
  forwardedFor: string | null | undefined,
  socketAddress: string | undefined,
  trustProxy: boolean | undefined,
): string {
  if (trustProxy) {
    const forwarded = forwardedFor?.split(",").pop()?.trim();
    if (forwarded) return forwarded;
  }
  return socketAddress ?? "unknown";
}
