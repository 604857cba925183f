// For tests: a zip archive of the given files (deflated, or stored when asked), written the way common zip
// tools write one (APPNOTE 6.3 local headers, central directory, end record), and a loopback server that serves
// bytes with an ETag, answering 304 to a matching If-None-Match and 206 to a Range request.
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

export function zipOf(
  files: Array<{ name: string; data: Buffer; stored?: boolean }>,
  modified = new Date(Date.UTC(2026, 10, 21, 6, 30, 0)),
): Buffer {
  const time =
    (modified.getUTCHours() << 11) | (modified.getUTCMinutes() << 5) | (modified.getUTCSeconds() >> 1);
  const date =
    ((modified.getUTCFullYear() - 1980) << 9) | ((modified.getUTCMonth() + 1) << 5) | modified.getUTCDate();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, "utf8");
    const data = file.stored ? file.data : zlib.deflateRawSync(file.data);
    const crc = zlib.crc32(file.data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(file.stored ? 0 : 8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(file.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(file.stored ? 0 : 8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(file.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export interface BytesServer {
  baseUrl: string;
  /** Each request's path and the headers that matter here. */
  requests: Array<{ path: string; ifNoneMatch?: string; range?: string }>;
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
