import type { CaptureImageType } from "@shelf/db/enums";

/** What an image's header says: its type and its size in pixels. */
export type ImageHeader = { type: CaptureImageType; width: number; height: number };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG: the signature, then the IHDR chunk, which the format requires first (width and height, 4 bytes each). */
function png(bytes: Buffer): ImageHeader | null {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (bytes.toString("latin1", 12, 16) !== "IHDR") return null;
  return { type: "png", width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): C0 to CF but DHT (C4), JPG (C8), DAC (CC). */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** Markers without a length: TEM and the restart markers. */
const isStandalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/** JPEG: SOI, then segments up to the first start-of-frame, whose header holds the height and width. */
function jpeg(bytes: Buffer): ImageHeader | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return null;
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset++; // fill byte before a marker
      continue;
    }
    if (isStandalone(marker)) {
      offset += 2;
      continue;
    }
    // The image data (SOS) or its end (EOI) before any frame header: not an image we can size.
    if (marker === 0xda || marker === 0xd9 || marker === 0xd8) return null;
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (length < 7 || offset + 9 > bytes.length) return null;
      return { type: "jpeg", height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return null;
}

/**
 * WebP: a RIFF container of type WEBP whose first chunk is the image (`VP8 ` lossy, `VP8L` lossless) or the extended
 * header (`VP8X`) that states the canvas size.
 */
function webp(bytes: Buffer): ImageHeader | null {
  if (bytes.length < 16 || bytes.toString("latin1", 0, 4) !== "RIFF" || bytes.toString("latin1", 8, 12) !== "WEBP") {
    return null;
  }
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8 ") {
    // A key frame: 3 bytes of frame tag, the start code 9D 01 2A, then 14-bit width and height (2 bits of scale).
    if (bytes.length < 30 || bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
    return { type: "webp", width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === "VP8L") {
    // The signature 0x2F, then 14 bits of width - 1 and 14 bits of height - 1.
    if (bytes.length < 25 || bytes[20] !== 0x2f) return null;
    const bits = bytes.readUInt32LE(21);
    return { type: "webp", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    // Flags and reserved bytes, then 24 bits of canvas width - 1 and 24 bits of canvas height - 1.
    if (bytes.length < 30) return null;
    return { type: "webp", width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  }
  return null;
}

/**
 * The type and pixel size of a PNG, JPEG or WebP image, told by its bytes (never by a name or a declared type);
 * null for anything else, a header cut short, or an image of no pixels.
 */
export function readImageHeader(bytes: Buffer): ImageHeader | null {
  const header = png(bytes) ?? jpeg(bytes) ?? webp(bytes);
  if (!header || header.width < 1 || header.height < 1) return null;
  return header;
}
