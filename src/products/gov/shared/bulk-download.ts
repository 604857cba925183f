// Big bulk files (a register's weekly or monthly archive) downloaded to the data directory as a stream: never
// held in memory, continued with a Range request after an interrupted download, and not fetched again while the
// upstream says (ETag / Last-Modified → 304) that the copy on disk is current. Bulk imports then read the file.
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

interface BulkFile {
  /** The complete file on disk. */
  file: string;
  url: string;
  bytes: number;
  etag: string | null;
  lastModified: string | null;
  /** The copy on disk was current (304): nothing was downloaded. */
  reused: boolean;
}

interface Meta {
  url: string;
  etag: string | null;
  lastModified: string | null;
  complete: boolean;
}

interface BulkDownloadRequest {
  url: string;
  /** Folder of the data directory holding this collection's files. */
  dir: string;
  fileName: string;
  userAgent: string;
  fetchImpl?: typeof fetch;
  /** The download fails when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
}

function readMeta(file: string): Meta | undefined {
  try {
    return JSON.parse(fs.readFileSync(`${file}.json`, "utf8")) as Meta;
  } catch {
    return undefined;
  }
}

function writeMeta(file: string, meta: Meta): void {
  fs.writeFileSync(`${file}.json`, JSON.stringify(meta));
}

/** Aborts when the body stalls; every chunk that arrives re-arms the timer. */
function idleGuard(timeoutMs: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => controller.abort(new Error(`no data for ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
  };
  return { signal: controller.signal, arm, stop: () => clearTimeout(timer) };
}

/** Downloads `url` into `dir/fileName` (or confirms the copy there is current) and removes other files of dir. */
export async function downloadBulkFile(request: BulkDownloadRequest): Promise<BulkFile> {
  fs.mkdirSync(request.dir, { recursive: true });
  const file = path.join(request.dir, request.fileName);
  const part = `${file}.part`;
  const meta = readMeta(file);
  const headers: Record<string, string> = { "user-agent": request.userAgent, "accept-encoding": "identity" };
  let resumeFrom = 0;
  if (meta?.url === request.url && meta.complete && fs.existsSync(file)) {
    if (meta.etag) headers["if-none-match"] = meta.etag;
    if (meta.lastModified) headers["if-modified-since"] = meta.lastModified;
  } else if (
    meta?.url === request.url &&
    !meta.complete &&
    fs.existsSync(part) &&
    (meta.etag || meta.lastModified)
  ) {
    resumeFrom = fs.statSync(part).size;
    headers.range = `bytes=${resumeFrom}-`;
    headers["if-range"] = (meta.etag ?? meta.lastModified) as string;
  }
  const guard = idleGuard(request.idleTimeoutMs ?? 60_000);
  guard.arm();
  try {
    const response = await (request.fetchImpl ?? fetch)(request.url, {
      headers,
      redirect: "follow",
      signal: guard.signal,
    });
    if (response.status === 304 && meta) {
      await response.body?.cancel();
      return { ...meta, file, bytes: fs.statSync(file).size, reused: true };
    }
    if (response.status !== 200 && response.status !== 206) {
      await response.body?.cancel();
      throw new Error(`download of ${request.url} failed: HTTP ${response.status}`);
    }
    if (!response.body) throw new Error(`download of ${request.url}: empty answer`);
    const append = response.status === 206 && resumeFrom > 0;
    const next: Meta = {
      url: request.url,
      etag: response.headers.get("etag"),
      lastModified: response.headers.get("last-modified"),
      complete: false,
    };
    writeMeta(file, next);
    const expected = Number(response.headers.get("content-length") ?? Number.NaN) + (append ? resumeFrom : 0);
    const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
    body.on("data", guard.arm);
    await pipeline(body, fs.createWriteStream(part, { flags: append ? "a" : "w" }));
    const bytes = fs.statSync(part).size;
    if (Number.isFinite(expected) && bytes !== expected) {
      throw new Error(`download of ${request.url} stopped at ${bytes} of ${expected} bytes`);
    }
    fs.renameSync(part, file);
    writeMeta(file, { ...next, complete: true });
    for (const other of fs.readdirSync(request.dir)) {
      if (other !== request.fileName && other !== `${request.fileName}.json`) {
        fs.rmSync(path.join(request.dir, other), { force: true, recursive: true });
      }
    }
    return { file, url: request.url, bytes, etag: next.etag, lastModified: next.lastModified, reused: false };
  } finally {
    guard.stop();
  }
}
