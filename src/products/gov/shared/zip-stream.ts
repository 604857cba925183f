// Reads a zip file on disk one entry at a time, as a stream: the central directory says where each entry is,
// its bytes are inflated as they are read and their CRC-32 checked at the end, so a 2 GB member never sits in
// memory. Stored (0) and deflated (8) entries, ZIP64 sizes and offsets; no encryption, no multi-disk archives.
// Format: PKWARE APPNOTE.TXT 6.3 (§4.3.7 local header, §4.3.12 central directory, §4.3.16 end of central
// directory, §4.3.14–15 ZIP64 end record and locator, §4.5.3 ZIP64 extra field).
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import { pipeline, Transform, type TransformCallback } from "node:stream";
import zlib from "node:zlib";

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  /** Where the entry's local header starts. */
  headerOffset: number;
  /** The entry's modification time (DOS time: local time of the zipping machine, read as UTC). */
  modified: Date;
}

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length)
    throw new Error(`zip: expected ${length} bytes at ${position}, read ${bytesRead}`);
  return buffer;
}

function dosDate(date: number, time: number): Date {
  return new Date(
    Date.UTC(
      1980 + (date >> 9),
      ((date >> 5) & 0xf) - 1,
      date & 0x1f,
      time >> 11,
      (time >> 5) & 0x3f,
      (time & 0x1f) * 2,
    ),
  );
}

/** The entries of a zip file, from its central directory. */
export async function listZipEntries(file: string): Promise<ZipEntry[]> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const tailLength = Math.min(size, 22 + MAX_COMMENT + 20);
    const tail = await readAt(handle, size - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new Error(`zip: ${file} has no end of central directory (not a zip, or truncated)`);
    let count = tail.readUInt16LE(at + 10);
    let directorySize = tail.readUInt32LE(at + 12);
    let directoryOffset = tail.readUInt32LE(at + 16);
    if (at >= 20 && tail.readUInt32LE(at - 20) === EOCD64_LOCATOR) {
      const record = await readAt(handle, Number(tail.readBigUInt64LE(at - 20 + 8)), 56);
      if (record.readUInt32LE(0) !== EOCD64) throw new Error(`zip: ${file} has a bad ZIP64 end record`);
      count = Number(record.readBigUInt64LE(32));
      directorySize = Number(record.readBigUInt64LE(40));
      directoryOffset = Number(record.readBigUInt64LE(48));
    }
    const directory = await readAt(handle, directoryOffset, directorySize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (directory.readUInt32LE(p) !== CENTRAL)
        throw new Error(`zip: ${file}: bad central directory entry ${n}`);
      const nameLength = directory.readUInt16LE(p + 28);
      const extraLength = directory.readUInt16LE(p + 30);
      const commentLength = directory.readUInt16LE(p + 32);
      const flags = directory.readUInt16LE(p + 8);
      const name = directory.toString(flags & 0x800 ? "utf8" : "latin1", p + 46, p + 46 + nameLength);
      let compressedSize = directory.readUInt32LE(p + 20);
      let entrySize = directory.readUInt32LE(p + 24);
      let headerOffset = directory.readUInt32LE(p + 42);
      const extra = directory.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
      for (let e = 0; e + 4 <= extra.length; ) {
        const id = extra.readUInt16LE(e);
        const length = extra.readUInt16LE(e + 2);
        if (id === 0x0001) {
          // Only the fields saturated at 0xFFFFFFFF are present, in this order.
          let q = e + 4;
          if (entrySize === 0xffffffff) {
            entrySize = Number(extra.readBigUInt64LE(q));
            q += 8;
          }
          if (compressedSize === 0xffffffff) {
            compressedSize = Number(extra.readBigUInt64LE(q));
            q += 8;
          }
          if (headerOffset === 0xffffffff) headerOffset = Number(extra.readBigUInt64LE(q));
        }
        e += 4 + length;
      }
      if (flags & 0x1) throw new Error(`zip: ${file}: ${name} is encrypted`);
      entries.push({
        name,
        method: directory.readUInt16LE(p + 10),
        compressedSize,
        size: entrySize,
        crc32: directory.readUInt32LE(p + 16),
        headerOffset,
        modified: dosDate(directory.readUInt16LE(p + 14), directory.readUInt16LE(p + 12)),
      });
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/** Counts bytes and their CRC-32 on the way through; fails the stream when either differs from the entry's. */
class EntryCheck extends Transform {
  private crc = 0;
  private bytes = 0;
  private readonly entry: ZipEntry;
  constructor(entry: ZipEntry) {
    super();
    this.entry = entry;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.crc = zlib.crc32(chunk, this.crc);
    this.bytes += chunk.length;
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    if (this.bytes !== this.entry.size) {
      done(new Error(`zip: ${this.entry.name} inflated to ${this.bytes} bytes, expected ${this.entry.size}`));
    } else if (this.crc >>> 0 !== this.entry.crc32 >>> 0) {
      done(new Error(`zip: ${this.entry.name} fails its CRC-32 check (corrupt download?)`));
    } else done();
  }
}

/** The uncompressed bytes of one entry, streamed from the file. */
export async function openZipEntry(file: string, entry: ZipEntry): Promise<NodeJS.ReadableStream> {
  const handle = await open(file, "r");
  let header: Buffer;
  try {
    header = await readAt(handle, entry.headerOffset, 30);
  } finally {
    await handle.close();
  }
  if (header.readUInt32LE(0) !== LOCAL) throw new Error(`zip: ${file}: bad local header for ${entry.name}`);
  const start = entry.headerOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new Error(`zip: ${entry.name} uses compression method ${entry.method} (only stored and deflate)`);
  }
  const check = new EntryCheck(entry);
  if (entry.compressedSize === 0) {
    check.end();
    return check;
  }
  const raw = fs.createReadStream(file, { start, end: start + entry.compressedSize - 1 });
  // pipeline, not pipe: a reader that stops early (destroys the entry's stream) closes the file too, and an
  // error anywhere fails the stream read.
  const ignore = () => {};
  if (entry.method === 0) return pipeline(raw, check, ignore);
  return pipeline(raw, zlib.createInflateRaw(), check, ignore);
}
