/**
 * A small zip writer for the demo's archives: stored (uncompressed) entries, every one dated 2026-01-01 00:00, so the
 * same entries always give the same bytes. CRC-32 by table (zlib.crc32 is not in every Node 20 the project supports).
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO-HDLC, as zip and gzip use it). */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// MS-DOS date and time of 2026-01-01 00:00:00: ((year - 1980) << 9) | (month << 5) | day; time 0.
const DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

export type ZipEntry = { path: string; content: Buffer };

/**
 * The fields a local header and its central directory record share, in the same order (from "version needed to
 * extract" to "file name length"), written at `at`: 4 in a local header, 6 in a central record.
 */
function writeSharedFields(header: Buffer, at: number, fields: { crc: number; size: number; nameLength: number }) {
  header.writeUInt16LE(10, at); // version needed: 1.0 (stored)
  header.writeUInt16LE(0x0800, at + 2); // flags: UTF-8 names
  header.writeUInt16LE(0, at + 4); // method: stored
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(fields.crc, at + 10);
  header.writeUInt32LE(fields.size, at + 14); // compressed size: the same, as nothing is compressed
  header.writeUInt32LE(fields.size, at + 18);
  header.writeUInt16LE(fields.nameLength, at + 22);
}

/** A zip archive of these files (paths with `/`, in this order), each stored, with UTF-8 names. */
export function zipArchive(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.path, "utf8");
    const crc = crc32(entry.content);
    const size = entry.content.length;
    const shared = { crc, size, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeSharedFields(local, 4, shared);
    local.writeUInt16LE(0, 28); // extra field length
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, spec 2.0 (so the mode below is read)
    writeSharedFields(central, 6, shared);
    // extra, comment, disk number, internal attributes: 0
    central.writeUInt32LE(((0o100644 << 16) >>> 0) as number, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.content);
    centrals.push(central, name);
    offset += local.length + name.length + size;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
