import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pumpFile } from "./pump";

let dir: string;
let file: string;
const bytes = randomBytes(5 * 1024 * 1024 + 123);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-pump-"));
  file = path.join(dir, "data.bin");
  await fs.writeFile(file, bytes);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** A socket-like sink that holds every chunk a while before it is done with it, and copies it only then. */
function slowSink(options: { failAfter?: number } = {}) {
  const received: Buffer[] = [];
  let writes = 0;
  const sink = new Writable({
    highWaterMark: 2 * 1024 * 1024,
    write(chunk: Buffer, _encoding, done) {
      writes++;
      if (options.failAfter !== undefined && writes > options.failAfter) {
        sink.destroy();
        return;
      }
      setTimeout(() => {
        received.push(Buffer.from(chunk));
        done();
      }, 2);
    },
  });
  return { sink, received: () => Buffer.concat(received) };
}

describe("pumpFile", () => {
  it("writes the whole file, and any range, byte for byte, though it reuses its buffers", async () => {
    for (const range of [
      undefined,
      { start: 0, end: 0 },
      { start: 1_000_000, end: 3_500_000 },
      { start: 5, end: bytes.length - 1 },
    ]) {
      const handle = await fs.open(file, "r");
      const { sink, received } = slowSink();
      await pumpFile(handle, range, sink);
      await handle.close();
      const expected = range ? bytes.subarray(range.start, range.end + 1) : bytes;
      expect(received().equals(expected), JSON.stringify(range)).toBe(true);
    }
  });

  it("stops with an error when the client goes away, without hanging", async () => {
    const handle = await fs.open(file, "r");
    const { sink } = slowSink({ failAfter: 2 });
    await expect(pumpFile(handle, undefined, sink)).rejects.toThrow();
    await handle.close();
  });

  it("refuses a range the file no longer holds", async () => {
    const handle = await fs.open(file, "r");
    const { sink } = slowSink();
    await expect(pumpFile(handle, { start: bytes.length - 10, end: bytes.length + 10 }, sink)).rejects.toThrow(
      /ended before the range/,
    );
    await handle.close();
  });
});
