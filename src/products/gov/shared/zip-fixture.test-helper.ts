// For tests: a zip archive of the given files (deflated, or stored when asked), written the way common zip
// tools write one (APPNOTE 6.3 local headers, central directory, end record; on request data descriptors,
// ISO-8859-1 names and ZIP64 fields), and a loopback server that serves bytes with an ETag, answering 304 to a
// matching If-None-Match and 206 to a Range request.
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

export interface ZipFixtureFile {
  name: string;
  data: Buffer;
  stored?: boolean;
  /** Sizes and CRC after the data (general-purpose flag bit 3), the way a zip written as a stream has them. */
  descriptor?: boolean;
  /** The name in ISO-8859-1 without the UTF-8 flag (bit 11). */
  latin1Name?: boolean;
}

/** `zip64`: every size and offset in ZIP64 fields, with the ZIP64 end record and locator, as for a 7 GB entry. */
export function zipOf(
  files: ZipFixtureFile[],
  modified = new Date(Date.UTC(2026, 10, 21, 6, 30, 0)),
  options: { zip64?: boolean } = {},
): Buffer {
  const time =
    (modified.getUTCHours() << 11) | (modified.getUTCMinutes() << 5) | (modified.getUTCSeconds() >> 1);
  const date =
    ((modified.getUTCFullYear() - 1980) << 9) | ((modified.getUTCMonth() + 1) << 5) | modified.getUTCDate();
  const zip64 = options.zip64 === true;
  const FULL = 0xffffffff;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, file.latin1Name ? "latin1" : "utf8");
    const data = file.stored ? file.data : zlib.deflateRawSync(file.data);
    const crc = zlib.crc32(file.data) >>> 0;
    const flags = (file.latin1Name ? 0 : 0x800) | (file.descriptor ? 0x8 : 0);
    const version = zip64 ? 45 : 20;
    const localExtra = Buffer.alloc(zip64 ? 20 : 0);
    if (zip64) {
      localExtra.writeUInt16LE(1, 0);
      localExtra.writeUInt16LE(16, 2);
      localExtra.writeBigUInt64LE(BigInt(file.descriptor ? 0 : file.data.length), 4);
      localExtra.writeBigUInt64LE(BigInt(file.descriptor ? 0 : data.length), 12);
    }
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(version, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(file.stored ? 0 : 8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    if (!file.descriptor) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(zip64 ? FULL : data.length, 18);
      local.writeUInt32LE(zip64 ? FULL : file.data.length, 22);
    }
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    const descriptor = Buffer.alloc(file.descriptor ? (zip64 ? 24 : 16) : 0);
    if (file.descriptor) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      if (zip64) {
        descriptor.writeBigUInt64LE(BigInt(data.length), 8);
        descriptor.writeBigUInt64LE(BigInt(file.data.length), 16);
      } else {
        descriptor.writeUInt32LE(data.length, 8);
        descriptor.writeUInt32LE(file.data.length, 12);
      }
    }
    const centralExtra = Buffer.alloc(zip64 ? 28 : 0);
    if (zip64) {
      centralExtra.writeUInt16LE(1, 0);
      centralExtra.writeUInt16LE(24, 2);
      centralExtra.writeBigUInt64LE(BigInt(file.data.length), 4);
      centralExtra.writeBigUInt64LE(BigInt(data.length), 12);
      centralExtra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(version, 4);
    central.writeUInt16LE(version, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(file.stored ? 0 : 8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(zip64 ? FULL : data.length, 20);
    central.writeUInt32LE(zip64 ? FULL : file.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(centralExtra.length, 30);
    central.writeUInt32LE(zip64 ? FULL : offset, 42);
    locals.push(local, name, localExtra, data, descriptor);
    centrals.push(central, name, centralExtra);
    offset += local.length + name.length + localExtra.length + data.length + descriptor.length;
  }
  const directory = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(files.length), 24);
    record.writeBigUInt64LE(BigInt(files.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : files.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : files.length, 10);
  end.writeUInt32LE(zip64 ? FULL : directory.length, 12);
  end.writeUInt32LE(zip64 ? FULL : offset, 16);
  return Buffer.concat([...locals, directory, ...tail, end]);
}

export interface BytesServer {
  baseUrl: string;
  /** Each request's path and the headers that matter here. */
  requests: Array<{ path: string; ifNoneMatch?: string; range?: string; authorization?: string }>;
  /** Replaces what is served (a new release). */
  serve: (path: string, bytes: Buffer, etag: string) => void;
  close: () => Promise<void>;
}

export async function startBytesServer(): Promise<BytesServer> {
  const files = new Map<string, { bytes: Buffer; etag: string }>();
  const requests: BytesServer["requests"] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    requests.push({
      path,
      ...(req.headers["if-none-match"] ? { ifNoneMatch: String(req.headers["if-none-match"]) } : {}),
      ...(req.headers.range ? { range: String(req.headers.range) } : {}),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    const file = files.get(path);
    if (!file) {
      res.writeHead(404).end("not here");
      return;
    }
    if (req.headers["if-none-match"] === file.etag) {
      res.writeHead(304, { etag: file.etag }).end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ""));
    if (range && req.headers["if-range"] === file.etag) {
      const from = Number(range[1]);
      res.writeHead(206, { etag: file.etag, "content-length": String(file.bytes.length - from) });
      res.end(file.bytes.subarray(from));
      return;
    }
    res.writeHead(200, { etag: file.etag, "content-length": String(file.bytes.length) });
    res.end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    serve: (path, bytes, etag) => files.set(path, { bytes, etag }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
