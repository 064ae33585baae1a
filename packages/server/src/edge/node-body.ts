import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Holds a Node request's body to `limit` bytes for a handler that reads the stream itself (Next.js), where no
 * limit of ours could act later. A declared `Content-Length` over the limit is refused at once (false). A chunked
 * body is counted as Node's parser hands it over, before any reader sees it: past the limit, nothing more is passed
 * on (so the reader never sees a truncated body as complete) and `onExceeded` runs.
 */
export function capNodeBody(req: IncomingMessage, limit: number, onExceeded: () => void): boolean {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return false;
  let received = 0;
  const push = req.push;
  req.push = function (this: IncomingMessage, chunk: Buffer | null, encoding?: BufferEncoding) {
    // Past the limit the rest is dropped, its end too, while the socket is still read: see `lingerAfter`.
    if (received > limit) return true;
    if (chunk !== null) received += chunk.byteLength;
    if (received <= limit) return push.call(this, chunk, encoding);
    onExceeded();
    return true;
  };
  return true;
}

const LINGER_MS = 2000;

/**
 * Closes the connection of an answer sent before its request's body was read, without losing the answer. Node
 * closes the socket as soon as the answer is out, and closing with unread bytes makes the kernel send a reset,
 * which can reach a client that is still sending before it has read the answer. So the socket half-closes, is read
 * (and the bytes dropped) for a moment longer, and only then is closed.
 */
export function lingerAfter(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  const socket = res.socket;
  if (!socket) return;
  res.once("finish", () => {
    socket.removeListener("finish", socket.destroy);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once("close", () => clearTimeout(timer));
  });
}
