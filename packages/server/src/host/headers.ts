/**
 * The client's address as the server worked it out (socket, or a trusted proxy's X-Forwarded-For), set on every page
 * request after any value the client sent is dropped: what sign-in throttling counts by.
 */
export const CLIENT_ADDRESS_HEADER = "x-shelf-client-address";
/** The CSP nonce of this page request, for scripts the pages add themselves. */
export const NONCE_HEADER = "x-shelf-nonce";
