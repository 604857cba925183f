// Reads the entries of a zip archive as it streams in (a download), without the central directory at its end:
// each local file header, then the entry's bytes inflated on the fly (stored or deflated). Handles entries
// whose sizes come after the data (data descriptor, general-purpose flag bit 3: the end of the deflate stream
// tells where the data stops) and ZIP64 sizes (Receita Federal's Estabelecimentos0.zip is 7 GB inflated).
// Layout: PKWARE APPNOTE.TXT 6.3.x, sections 4.3.7 (local file header), 4.3.9 (data descriptor), 4.5.3 (ZIP64).
import { createInflateRaw, type InflateRaw } from "node:zlib";

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const DESCRIPTOR = 0x08074b50;
const FLAG_ENCRYPTED = 0x1;
const FLAG_DESCRIPTOR = 0x8;
const FLAG_UTF8 = 0x800;

export interface ZipEntry {
  name: string;
  /** The inflated bytes; read them whole (or call `skip`) before asking for the next entry. */
  body: AsyncIterable<Buffer>;
}

export class ZipFormatError extends Error {}

/** Pulls exact byte counts out of a chunked stream, and takes back bytes read too far. */
class ByteReader {
  private readonly source: AsyncIterator<Uint8Array>;
  private pending: Buffer[] = [];
  private buffered = 0;
  private done = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.source = source[Symbol.asyncIterator]();
  }

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.source.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    this.pending.push(chunk);
    this.buffered += chunk.length;
    return true;
  }

  /** Exactly n bytes, or fewer only at the end of the stream. */
  async read(n: number): Promise<Buffer> {
    while (this.buffered < n && (await this.fill())) {}
    const all = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    const taken = all.subarray(0, Math.min(n, all.length));
    const rest = all.subarray(taken.length);
    this.pending = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }

  async exactly(n: number, what: string): Promise<Buffer> {
    const bytes = await this.read(n);
    if (bytes.length < n) throw new ZipFormatError(`zip ended inside ${what}`);
    return bytes;
  }

  /** The next chunk, at most `max` bytes; undefined at the end of the stream. */
  async chunk(max = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
    if (this.buffered === 0 && !(await this.fill())) return undefined;
    const head = this.pending.shift() as Buffer;
    this.buffered -= head.length;
    if (head.length <= max) return head;
    this.unread(head.subarray(max));
    return head.subarray(0, max);
  }

  unread(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.pending.unshift(bytes);
    this.buffered += bytes.length;
  }
}

interface LocalHeader {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
}

async function readLocalHeader(reader: ByteReader): Promise<LocalHeader | undefined> {
  const signature = await reader.read(4);
  if (signature.length === 0) return undefined;
  if (signature.length < 4) throw new ZipFormatError("zip ended inside a header signature");
  const kind = signature.readUInt32LE(0);
  if (kind === CENTRAL_HEADER || kind === END_OF_CENTRAL) return undefined;
  if (kind !== LOCAL_HEADER) {
    throw new ZipFormatError(`not a zip local file header (signature 0x${kind.toString(16)})`);
  }
  const fixed = await reader.exactly(26, "a local file header");
  const flags = fixed.readUInt16LE(2);
  const method = fixed.readUInt16LE(4);
  let compressedSize = fixed.readUInt32LE(14);
  const nameLength = fixed.readUInt16LE(22);
  const extraLength = fixed.readUInt16LE(24);
  const nameBytes = await reader.exactly(nameLength, "an entry name");
  const extra = await reader.exactly(extraLength, "a header's extra field");
  if (compressedSize === 0xffffffff) compressedSize = zip64CompressedSize(extra, fixed.readUInt32LE(18));
  const name = nameBytes.toString(flags & FLAG_UTF8 ? "utf8" : "latin1");
  if (flags & FLAG_ENCRYPTED) throw new ZipFormatError(`${name}: encrypted entries are not supported`);
  if (method !== 0 && method !== 8)
    throw new ZipFormatError(`${name}: compression method ${method} is not supported`);
  return { name, flags, method, compressedSize };
}

/** The compressed size from the ZIP64 extra field (id 1: uncompressed size first when it is 0xFFFFFFFF too). */
function zip64CompressedSize(extra: Buffer, uncompressed32: number): number {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (id === 1) {
      const offset = at + 4 + (uncompressed32 === 0xffffffff ? 8 : 0);
      return Number(extra.readBigUInt64LE(offset));
    }
    at += 4 + size;
  }
  throw new ZipFormatError("a ZIP64 entry without its ZIP64 extra field");
}

/** Inflates `compressed` bytes, or — when the size is unknown — until the deflate stream says it ended. */
async function* inflated(reader: ByteReader, compressedSize: number | undefined): AsyncGenerator<Buffer> {
  const inflater: InflateRaw = createInflateRaw();
  const out: Buffer[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  inflater.on("data", (chunk: Buffer) => {
    out.push(chunk);
    signal();
  });
  inflater.on("end", () => {
    ended = true;
    signal();
  });
  inflater.on("error", (error: Error) => {
    failure = error;
    signal();
  });
  // Chunks fed whose bytes the inflater may not have consumed yet (given back when the deflate stream ends);
  // fedBase counts the bytes before the first of them.
  let fed: Buffer[] = [];
  let fedBase = 0;
  let left = compressedSize ?? Number.POSITIVE_INFINITY;
  let writing = false;
  let inputDone = false;
  try {
    for (;;) {
      while (out.length > 0) yield out.shift() as Buffer;
      if (failure) throw new ZipFormatError(`corrupt deflate data: ${failure.message}`);
      if (ended) break;
      if (!writing && !inputDone) {
        const chunk = left > 0 ? await reader.chunk(Math.min(left, 1 << 16)) : undefined;
        if (!chunk) {
          if (compressedSize !== undefined && left > 0) throw new ZipFormatError("zip ended inside an entry");
          inputDone = true;
          inflater.end();
        } else {
          left -= chunk.length;
          fed.push(chunk);
          writing = true;
          inflater.write(chunk, () => {
            writing = false;
            signal();
          });
        }
      }
      if (out.length === 0 && !ended && !failure) await new Promise<void>((resolve) => (wake = resolve));
      while (fed.length > 0 && fedBase + (fed[0] as Buffer).length <= inflater.bytesWritten) {
        fedBase += (fed.shift() as Buffer).length;
      }
    }
    if (compressedSize === undefined) {
      // Give back what was read past the end of the deflate stream: the data descriptor and the next header.
      const rest = Buffer.concat(fed).subarray(inflater.bytesWritten - fedBase);
      reader.unread(rest);
      fed = [];
    }
  } finally {
    inflater.destroy();
  }
}

async function* stored(reader: ByteReader, size: number): AsyncGenerator<Buffer> {
  let left = size;
  while (left > 0) {
    const chunk = await reader.chunk(Math.min(left, 1 << 16));
    if (!chunk) throw new ZipFormatError("zip ended inside an entry");
    left -= chunk.length;
    yield chunk;
  }
}

/** Skips the data descriptor after an entry written with flag bit 3 (12 or, for ZIP64, 20 bytes). */
async function skipDescriptor(reader: ByteReader): Promise<void> {
  const head = await reader.read(4);
  if (!(head.length === 4 && head.readUInt32LE(0) === DESCRIPTOR)) reader.unread(head);
  // crc32, then the compressed and uncompressed sizes (4 bytes each, or 8 each for ZIP64): the next header's
  // signature tells which.
  const rest = await reader.read(24);
  const isHeader = (at: number) =>
    rest.length >= at + 4 && [LOCAL_HEADER, CENTRAL_HEADER, END_OF_CENTRAL].includes(rest.readUInt32LE(at));
  const size = !isHeader(12) && isHeader(20) ? 20 : 12;
  reader.unread(rest.subarray(Math.min(size, rest.length)));
}

/** The entries of a zip archive read from a byte stream, in order. */
export async function* zipEntries(source: AsyncIterable<Uint8Array>): AsyncGenerator<ZipEntry> {
  const reader = new ByteReader(source);
  for (;;) {
    const header = await readLocalHeader(reader);
    if (!header) return;
    const sizeKnown = !(header.flags & FLAG_DESCRIPTOR) || header.compressedSize > 0;
    if (header.method === 0 && !sizeKnown) {
      throw new ZipFormatError(`${header.name}: a stored entry without its size is not supported`);
    }
    let consumed = false;
    const body =
      header.method === 0
        ? stored(reader, header.compressedSize)
        : inflated(reader, sizeKnown ? header.compressedSize : undefined);
    const tracked = (async function* () {
      yield* body;
      consumed = true;
    })();
    yield { name: header.name, body: tracked };
    if (!consumed)
      for await (const _ of tracked) {
      }
    if (header.flags & FLAG_DESCRIPTOR) await skipDescriptor(reader);
  }
}

/** The bytes of the first entry of a zip stream (Receita Federal's zips hold one CSV each). */
export async function* firstZipEntry(source: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  for await (const entry of zipEntries(source)) {
    yield* entry.body;
    return;
  }
  throw new ZipFormatError("the zip holds no entry");
}
