import { createHash } from "node:crypto";
import { crc32 } from "./zip";

/**
 * A small disk image writer for the demo's macOS apps: a FAT12 volume (with long names, so `Lumen Notes.app` keeps
 * its name) inside a UDIF `.dmg`, the format `hdiutil create -fs MS-DOS -layout NONE` makes and macOS mounts. Every
 * date is 2026-01-01 00:00 and the ids come from the content, so the same files always give the same bytes.
 */

const SECTOR = 512;
const DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1;
const ROOT_ENTRIES = 224;
const ATTR_DIRECTORY = 0x10;
const ATTR_ARCHIVE = 0x20;
const ATTR_LONG_NAME = 0x0f;

export type DiskFile = { path: string; content: Buffer };

type Folder = { name: string; folders: Map<string, Folder>; files: DiskFile[]; cluster: number; clusters: number };

const sectorsFor = (bytes: number) => Math.ceil(bytes / SECTOR);

function tree(files: DiskFile[]): Folder {
  const root: Folder = { name: "", folders: new Map(), files: [], cluster: 0, clusters: 0 };
  for (const file of files) {
    const parts = file.path.split("/");
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) {
        next = { name: part, folders: new Map(), files: [], cluster: 0, clusters: 0 };
        folder.folders.set(part, next);
      }
      folder = next;
    }
    folder.files.push({ path: parts.at(-1) as string, content: file.content });
  }
  return root;
}

/** A unique 8.3 name for `name` in its folder (`LUMENN~1APP`); the long name is kept in LFN entries. */
function shortName(name: string, index: number): Buffer {
  const dot = name.lastIndexOf(".");
  const clean = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, "");
  const base = clean(dot > 0 ? name.slice(0, dot) : name).slice(0, 6) || "FILE";
  const extension = dot > 0 ? clean(name.slice(dot + 1)).slice(0, 3) : "";
  return Buffer.from(`${`${base}~${index}`.padEnd(8)}${extension.padEnd(3)}`, "ascii");
}

function checksum(short: Buffer): number {
  let sum = 0;
  for (const byte of short) sum = (((sum & 1) << 7) + (sum >> 1) + byte) & 0xff;
  return sum;
}

function plainEntry(short: Buffer, attributes: number, cluster: number, size: number): Buffer {
  const entry = Buffer.alloc(32);
  short.copy(entry, 0);
  entry[11] = attributes;
  for (const offset of [16, 18, 24]) entry.writeUInt16LE(DOS_DATE, offset);
  entry.writeUInt16LE(cluster, 26);
  entry.writeUInt32LE(size, 28);
  return entry;
}

/** The long-name entries (last part first) and then the 8.3 entry of one name. */
function namedEntry(name: string, index: number, attributes: number, cluster: number, size: number): Buffer {
  const short = shortName(name, index);
  const units = [...Buffer.from(`${name}\0`, "utf16le")];
  const parts = Math.ceil(units.length / 26);
  const padded = Buffer.alloc(parts * 26, 0xff);
  Buffer.from(units).copy(padded);
  const entries: Buffer[] = [];
  for (let part = parts; part >= 1; part--) {
    const entry = Buffer.alloc(32);
    const chunk = padded.subarray((part - 1) * 26, part * 26);
    entry[0] = part | (part === parts ? 0x40 : 0);
    chunk.copy(entry, 1, 0, 10);
    entry[11] = ATTR_LONG_NAME;
    entry[13] = checksum(short);
    chunk.copy(entry, 14, 10, 22);
    chunk.copy(entry, 28, 22, 26);
    entries.push(entry);
  }
  return Buffer.concat([...entries, plainEntry(short, attributes, cluster, size)]);
}

const dotName = (dots: string) => Buffer.from(dots.padEnd(11), "ascii");

/** A FAT12 volume holding `files` (paths with `/`), one 512-byte sector per cluster. */
export function fatVolume(label: string, files: DiskFile[]): Buffer {
  const root = tree(files);
  const folders: Folder[] = [];
  const walk = (folder: Folder) => {
    for (const child of folder.folders.values()) {
      folders.push(child);
      walk(child);
    }
  };
  walk(root);
  // A folder's size: ".", "..", then each name's long entries and 8.3 entry.
  const entriesOf = (folder: Folder) =>
    [...folder.folders.keys(), ...folder.files.map((file) => file.path)].reduce(
      (count, name) => count + 1 + Math.ceil((name.length + 1) / 13),
      folder === root ? 0 : 2,
    );
  let next = 2;
  const allocate = (bytes: number) => {
    const first = next;
    next += Math.max(1, sectorsFor(bytes));
    return first;
  };
  for (const folder of folders) {
    folder.clusters = Math.max(1, sectorsFor(entriesOf(folder) * 32));
    folder.cluster = allocate(folder.clusters * SECTOR);
  }
  const fileClusters = new Map<Buffer, number>();
  const everyFile = [root, ...folders].flatMap((folder) => folder.files);
  for (const file of everyFile) fileClusters.set(file.content, file.content.length ? allocate(file.content.length) : 0);
  if (entriesOf(root) > ROOT_ENTRIES) throw new Error("Too many names at the root of a demo disk image.");

  const clusterCount = next - 2;
  const fatSectors = sectorsFor(Math.ceil(((clusterCount + 2) * 3) / 2));
  const rootSectors = (ROOT_ENTRIES * 32) / SECTOR;
  const firstData = 1 + 2 * fatSectors + rootSectors;
  const totalSectors = firstData + clusterCount;
  const image = Buffer.alloc(totalSectors * SECTOR);

  const boot = image.subarray(0, SECTOR);
  Buffer.from([0xeb, 0x3c, 0x90]).copy(boot, 0);
  boot.write("SHELFDMG", 3, "ascii");
  boot.writeUInt16LE(SECTOR, 11);
  boot[13] = 1;
  boot.writeUInt16LE(1, 14);
  boot[16] = 2;
  boot.writeUInt16LE(ROOT_ENTRIES, 17);
  boot.writeUInt16LE(totalSectors, 19);
  boot[21] = 0xf8;
  boot.writeUInt16LE(fatSectors, 22);
  boot.writeUInt16LE(32, 24);
  boot.writeUInt16LE(64, 26);
  boot[36] = 0x80;
  boot[38] = 0x29;
  createHash("sha256").update(label).digest().copy(boot, 39, 0, 4);
  boot.write(
    label
      .toUpperCase()
      .replace(/[^A-Z0-9 ]/g, "")
      .slice(0, 11)
      .padEnd(11),
    43,
    "ascii",
  );
  boot.write("FAT12   ", 54, "ascii");
  boot[510] = 0x55;
  boot[511] = 0xaa;

  const fat = Buffer.alloc(fatSectors * SECTOR);
  const setFat = (cluster: number, value: number) => {
    const offset = Math.floor((cluster * 3) / 2);
    if (cluster % 2 === 0) {
      fat[offset] = value & 0xff;
      fat[offset + 1] = ((fat[offset + 1] as number) & 0xf0) | ((value >> 8) & 0x0f);
    } else {
      fat[offset] = ((fat[offset] as number) & 0x0f) | ((value << 4) & 0xf0);
      fat[offset + 1] = (value >> 4) & 0xff;
    }
  };
  setFat(0, 0xff8);
  setFat(1, 0xfff);
  const chain = (first: number, count: number) => {
    for (let index = 0; index < count; index++) setFat(first + index, index === count - 1 ? 0xfff : first + index + 1);
  };
  const at = (cluster: number) => (firstData + cluster - 2) * SECTOR;

  const listing = (folder: Folder, parent: Folder | null): Buffer => {
    const entries: Buffer[] = [];
    if (parent) {
      entries.push(plainEntry(dotName("."), ATTR_DIRECTORY, folder.cluster, 0));
      entries.push(plainEntry(dotName(".."), ATTR_DIRECTORY, parent === root ? 0 : parent.cluster, 0));
    }
    let index = 1;
    for (const child of folder.folders.values()) {
      entries.push(namedEntry(child.name, index++, ATTR_DIRECTORY, child.cluster, 0));
    }
    for (const file of folder.files) {
      const cluster = fileClusters.get(file.content) as number;
      entries.push(namedEntry(file.path, index++, ATTR_ARCHIVE, cluster, file.content.length));
    }
    return Buffer.concat(entries);
  };
  listing(root, null).copy(image, (1 + 2 * fatSectors) * SECTOR);
  const place = (folder: Folder, parent: Folder) => {
    listing(folder, parent).copy(image, at(folder.cluster));
    chain(folder.cluster, folder.clusters);
    for (const child of folder.folders.values()) place(child, folder);
  };
  for (const child of root.folders.values()) place(child, root);
  for (const file of everyFile) {
    const cluster = fileClusters.get(file.content) as number;
    if (!cluster) continue;
    file.content.copy(image, at(cluster));
    chain(cluster, sectorsFor(file.content.length));
  }
  fat.copy(image, SECTOR);
  fat.copy(image, SECTOR + fat.length);
  return image;
}

/** Apple's UDIF checksum field: CRC-32, 32 bits, in a 136-byte slot. */
function udifChecksum(crc: number): Buffer {
  const slot = Buffer.alloc(136);
  slot.writeUInt32BE(2, 0);
  slot.writeUInt32BE(32, 4);
  slot.writeUInt32BE(crc, 8);
  return slot;
}

/** A UDIF disk image (`.dmg`) of one uncompressed partition holding `volume`, as `hdiutil -layout NONE` lays it out. */
export function udifImage(volume: Buffer, partitionName: string): Buffer {
  const sectors = volume.length / SECTOR;
  const volumeCrc = crc32(volume);
  const table = Buffer.alloc(204 + 2 * 40);
  table.write("mish", 0, "ascii");
  table.writeUInt32BE(1, 4);
  table.writeBigUInt64BE(BigInt(sectors), 16);
  udifChecksum(volumeCrc).copy(table, 64);
  table.writeUInt32BE(2, 200);
  // One raw chunk with the whole volume, then the terminator.
  table.writeUInt32BE(0x00000001, 204);
  table.writeBigUInt64BE(BigInt(sectors), 204 + 16);
  table.writeBigUInt64BE(BigInt(volume.length), 204 + 32);
  table.writeUInt32BE(0xffffffff, 244);
  table.writeBigUInt64BE(BigInt(sectors), 244 + 8);
  table.writeBigUInt64BE(BigInt(volume.length), 244 + 24);
  const plist = Buffer.from(
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
      '<plist version="1.0">',
      "<dict>",
      "\t<key>resource-fork</key>",
      "\t<dict>",
      "\t\t<key>blkx</key>",
      "\t\t<array>",
      "\t\t\t<dict>",
      "\t\t\t\t<key>Attributes</key>",
      "\t\t\t\t<string>0x0050</string>",
      "\t\t\t\t<key>CFName</key>",
      `\t\t\t\t<string>${partitionName}</string>`,
      "\t\t\t\t<key>Data</key>",
      `\t\t\t\t<data>${table.toString("base64")}</data>`,
      "\t\t\t\t<key>ID</key>",
      "\t\t\t\t<string>0</string>",
      "\t\t\t\t<key>Name</key>",
      `\t\t\t\t<string>${partitionName}</string>`,
      "\t\t\t</dict>",
      "\t\t</array>",
      "\t</dict>",
      "</dict>",
      "</plist>",
      "",
    ].join("\n"),
    "utf8",
  );
  const trailer = Buffer.alloc(SECTOR);
  trailer.write("koly", 0, "ascii");
  trailer.writeUInt32BE(4, 4);
  trailer.writeUInt32BE(SECTOR, 8);
  trailer.writeUInt32BE(1, 12);
  trailer.writeBigUInt64BE(BigInt(volume.length), 32);
  trailer.writeUInt32BE(1, 56);
  trailer.writeUInt32BE(1, 60);
  createHash("sha256").update(volume).digest().copy(trailer, 64, 0, 16);
  udifChecksum(volumeCrc).copy(trailer, 80);
  trailer.writeBigUInt64BE(BigInt(volume.length), 216);
  trailer.writeBigUInt64BE(BigInt(plist.length), 224);
  const master = Buffer.alloc(4);
  master.writeUInt32BE(volumeCrc, 0);
  udifChecksum(crc32(master)).copy(trailer, 352);
  trailer.writeUInt32BE(1, 488);
  trailer.writeBigUInt64BE(BigInt(sectors), 492);
  return Buffer.concat([volume, plist, trailer]);
}
