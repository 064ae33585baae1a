import { describe, expect, it } from "vitest";
import { readImageHeader } from "./image-header";
import { fixture, handMadePng } from "./test-images";

describe("readImageHeader", () => {
  it("reads the type and pixel size of PNG, JPEG (baseline, progressive) and WebP (lossy, lossless, extended)", () => {
    expect(readImageHeader(fixture("7x5.png"))).toEqual({ type: "png", width: 7, height: 5 });
    expect(readImageHeader(handMadePng(300, 2))).toEqual({ type: "png", width: 300, height: 2 });
    expect(readImageHeader(fixture("12x9.jpg"))).toEqual({ type: "jpeg", width: 12, height: 9 });
    expect(readImageHeader(fixture("13x4-progressive.jpg"))).toEqual({ type: "jpeg", width: 13, height: 4 });
    expect(readImageHeader(fixture("11x6-lossy.webp"))).toEqual({ type: "webp", width: 11, height: 6 });
    expect(readImageHeader(fixture("9x3-lossless.webp"))).toEqual({ type: "webp", width: 9, height: 3 });
    expect(readImageHeader(fixture("10x8-alpha.webp"))).toEqual({ type: "webp", width: 10, height: 8 });
  });

  it("skips fill bytes and standalone markers before a JPEG's frame header", () => {
    const jpeg = fixture("12x9.jpg");
    const padded = Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xff, 0xff, 0xd0]), jpeg.subarray(2)]);
    expect(readImageHeader(padded)).toEqual({ type: "jpeg", width: 12, height: 9 });
  });

  it("refuses what is not a PNG, JPEG or WebP, a header cut short, and an image of no pixels", () => {
    const gif = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
    const bmp = Buffer.concat([Buffer.from("BM"), Buffer.alloc(60)]);
    const riffWave = Buffer.concat([Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt "), Buffer.alloc(30)]);
    for (const bytes of [
      gif,
      bmp,
      riffWave,
      Buffer.from("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>"),
      Buffer.from("not an image at all"),
      Buffer.alloc(0),
      fixture("7x5.png").subarray(0, 20),
      fixture("12x9.jpg").subarray(0, 100),
      fixture("11x6-lossy.webp").subarray(0, 26),
      handMadePng(0, 3),
    ]) {
      expect(readImageHeader(bytes), bytes.subarray(0, 12).toString("hex")).toBeNull();
    }
    // A JPEG whose scan starts before any frame header says no size.
    expect(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 0, 0, 0, 0, 0, 0]))).toBeNull();
  });
});
