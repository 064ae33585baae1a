import { createReadStream, statSync } from "node:fs";
import http from "node:http";

/**
 * The bare limit of this machine for sending one file over HTTP, written apart from the project: node:http and a
 * file stream read in 1 MiB chunks (the default 64 KiB ones ran at a third of the speed here), nothing else: no
 * signature check, no validators, no ranges, no log. SHELF_BENCH_FILE names the file.
 */
const file = process.env.SHELF_BENCH_FILE as string;
const { size } = statSync(file);

const server = http.createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/octet-stream", "content-length": size });
  createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(response);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`file baseline listening on ${(server.address() as { port: number }).port}`);
});
