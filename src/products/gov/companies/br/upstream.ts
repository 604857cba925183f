// Receita Federal's CNPJ open data since January 2026: a Nextcloud public share (token YggdBLfdninEJX9) with one
// YYYY-MM folder per monthly release. The folders and their files are listed with WebDAV PROPFIND (Depth 1) on
// /public.php/webdav/ with the share token as the Basic-auth user and an empty password (207 Multi-Status,
// RFC 4918); files are read from the same path with GET, which accepts Range (a broken download continues).
// The shared UpstreamClient does GET on text only, so this module does its own requests with the client's
// rules: the User-Agent, the base URL setting, the spacing booked through the store's upstream budget, a
// timeout, and in replay mode the family's recordings (the listings) and the fixture zips in ./fixtures.
// The share layout and PROPFIND access as verified in public importers'
// notes (e.g. the CNPJ ingest research note quoting "PROPFIND with Depth: 1 and HTTP Basic YggdBLfdninEJX9:").
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { XMLParser } from "fast-xml-parser";
import { errorText } from "../../../../json.ts";
import { UpstreamError, type UpstreamSpec } from "../../../../upstream/client.ts";
import { loadRecordings, RecordingIndex } from "../../../../upstream/recordings.ts";
import { zipArchive } from "../../shared/bulk-archive.ts";
import { downloadBulkFile } from "../../shared/bulk-download.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import type { Ctx } from "../register.ts";

export const BR_SHARE_TOKEN = "YggdBLfdninEJX9";
export const BR_COLLECTION = "co-br";
export const BR_SPEC: UpstreamSpec = {
  name: "gov-br-receita-cnpj",
  defaultBaseUrl: "https://arquivos.receitafederal.gov.br",
  maxConcurrent: 1,
  minIntervalMs: 2000,
  timeoutMs: 60_000,
};
export const BR_FIXTURES_DIR = path.join(import.meta.dirname, "fixtures");
const WEBDAV = "/public.php/webdav";
/** A stalled download (no byte for this long) is abandoned; the next attempt continues where it stopped. */
const STALL_MS = 120_000;

export interface ShareItem {
  name: string;
  folder: boolean;
  size: number | null;
  modified: string | null;
}

let replayIndex: RecordingIndex | undefined;
function recordings(): RecordingIndex {
  replayIndex ??= new RecordingIndex(loadRecordings(COMPANIES_RECORDINGS_DIR));
  return replayIndex;
}

/** GOV_BR_RECEITA_CNPJ_BASE_URL, resolved once by the upstream registry (its client's base URL). */
function brBaseUrl(ctx: Pick<Ctx, "upstreams">): string {
  return ctx.upstreams.client(BR_SPEC).baseUrl;
}

/** The share as people open it (answers' attribution and file URLs). */
export function brShareUrl(ctx: Pick<Ctx, "upstreams">): string {
  return `${brBaseUrl(ctx)}/index.php/s/${BR_SHARE_TOKEN}`;
}

function authHeaders(ctx: Ctx): Record<string, string> {
  return {
    "user-agent": ctx.upstreams.userAgent,
    authorization: `Basic ${Buffer.from(`${BR_SHARE_TOKEN}:`).toString("base64")}`,
  };
}

async function bookStart(ctx: Ctx): Promise<void> {
  const startAt = await ctx.store.upstreamBudgets
    .reserve(BR_SPEC.budget ?? BR_SPEC.name, BR_SPEC.minIntervalMs ?? 250)
    .catch(() => Date.now());
  if (startAt > Date.now()) await sleep(startAt - Date.now());
}

const PROPFIND_BODY =
  '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/>' +
  "<d:getlastmodified/></d:prop></d:propfind>";

/** The folder's children (the folder itself left out), from a WebDAV PROPFIND of Depth 1. */
export async function listShare(ctx: Ctx, folder = ""): Promise<ShareItem[]> {
  const requestPath = `${WEBDAV}/${folder ? `${encodeURIComponent(folder)}/` : ""}`;
  const url = `${brBaseUrl(ctx)}${requestPath}`;
  let body: string;
  if (ctx.upstreams.mode === "replay") {
    const answer = recordings().answer(BR_SPEC.name, "PROPFIND", { path: requestPath }, url);
    if (answer.status !== 207)
      throw new UpstreamError(BR_SPEC.name, `HTTP ${answer.status} from PROPFIND ${url}`);
    body = answer.body;
  } else {
    await bookStart(ctx);
    const response = await fetch(url, {
      method: "PROPFIND",
      headers: { ...authHeaders(ctx), depth: "1", "content-type": "application/xml; charset=utf-8" },
      body: PROPFIND_BODY,
      signal: AbortSignal.timeout(BR_SPEC.timeoutMs ?? 30_000),
    }).catch((error: unknown) => {
      throw new UpstreamError(BR_SPEC.name, `PROPFIND ${url} failed: ${String(error)}`);
    });
    body = await response.text();
    if (response.status !== 207) {
      throw new UpstreamError(BR_SPEC.name, `HTTP ${response.status} from PROPFIND ${url}`, response.status);
    }
  }
  return parseMultistatus(body, requestPath);
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (name) => name === "response" || name === "propstat",
});

interface DavResponse {
  href?: string;
  propstat?: Array<{
    status?: string;
    prop?: {
      resourcetype?: { collection?: unknown } | string;
      getcontentlength?: string;
      getlastmodified?: string;
    };
  }>;
}

/** The items of a 207 Multi-Status listing of `folderPath`; anything else is an upstream failure. */
function parseMultistatus(xml: string, folderPath: string): ShareItem[] {
  const doc = parser.parse(xml) as { multistatus?: { response?: DavResponse[] } };
  const responses = doc.multistatus?.response;
  if (!responses) throw new UpstreamError(BR_SPEC.name, "the PROPFIND answer is not a WebDAV multistatus");
  const folder = decodeURIComponent(folderPath).replace(/\/+$/, "");
  const items: ShareItem[] = [];
  for (const response of responses) {
    const href = decodeURIComponent(new URL(response.href ?? "", "http://x").pathname).replace(/\/+$/, "");
    if (href === folder || !href.startsWith(`${folder}/`)) continue;
    const ok =
      response.propstat?.find((p) => /\s200\s/.test(` ${p.status ?? ""} `)) ?? response.propstat?.[0];
    const prop = ok?.prop ?? {};
    const type = prop.resourcetype;
    const size = Number(prop.getcontentlength);
    items.push({
      name: href.slice(folder.length + 1),
      folder: typeof type === "object" && type !== null && "collection" in type,
      size: Number.isFinite(size) && prop.getcontentlength !== undefined ? size : null,
      modified: prop.getlastmodified ? new Date(prop.getlastmodified).toISOString() : null,
    });
  }
  return items;
}

/**
 * Where the release file being read is kept: the collection's folder of the shared bulk downloads, as for the
 * other registers' archives.
 */
export function brDownloadDir(ctx: Pick<Ctx, "config">): string {
  return path.join(ctx.config.dataDir, "bulk", BR_COLLECTION);
}

/** GET on the share: the token as Basic-auth user, each request booked through the upstream budget. */
function shareFetch(ctx: Ctx, signal?: AbortSignal): typeof fetch {
  return async (input, init) => {
    await bookStart(ctx);
    const signals = [init?.signal, signal].filter((s): s is AbortSignal => s != null);
    return fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), ...authHeaders(ctx) },
      signal: AbortSignal.any(signals),
    });
  };
}

/**
 * The CSV of one release file (Receita Federal's zips hold one each), streamed from the zip on disk. Live: the
 * files read before it are removed, then it is downloaded into the data directory by the shared bulk download
 * (a broken download continues with Range; a resumed import reads the copy on disk again once the share
 * answers 304), and `size` from the listing checks it is whole. Replay: the fixture zip.
 */
export async function openReleaseFile(
  ctx: Ctx,
  release: string,
  file: string,
  size: number | null,
  signal?: AbortSignal,
): Promise<AsyncIterable<Uint8Array>> {
  let zip: string;
  if (ctx.upstreams.mode === "replay") {
    zip = path.join(BR_FIXTURES_DIR, release, file);
    if (!fs.existsSync(zip)) {
      throw new UpstreamError(BR_SPEC.name, `no fixture ${release}/${file} (UPSTREAMS=replay)`, 404);
    }
  } else {
    removeDownloads(ctx, file);
    const url = `${brBaseUrl(ctx)}${WEBDAV}/${encodeURIComponent(release)}/${encodeURIComponent(file)}`;
    const download = await downloadBulkFile({
      url,
      dir: brDownloadDir(ctx),
      fileName: file,
      userAgent: ctx.upstreams.userAgent,
      idleTimeoutMs: STALL_MS,
      fetchImpl: shareFetch(ctx, signal),
    }).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      throw new UpstreamError(BR_SPEC.name, `${release}/${file}: ${errorText(error)}`);
    });
    if (size !== null && download.bytes !== size) {
      removeDownloads(ctx);
      throw new UpstreamError(
        BR_SPEC.name,
        `${release}/${file}: downloaded ${download.bytes} bytes of ${size}; will download it again`,
      );
    }
    zip = download.file;
  }
  if (ctx.upstreams.mode === "replay") return firstMember(zip, release, file);
  return removedWhenUnreadable(ctx, firstMember(zip, release, file));
}

async function* firstMember(zip: string, release: string, file: string): AsyncGenerator<Uint8Array> {
  const archive = await zipArchive(zip);
  const member = archive.names[0];
  if (member === undefined)
    throw new UpstreamError(BR_SPEC.name, `${release}/${file}: the zip holds no file`);
  yield* await archive.open(member);
}

/** A copy that is no zip or fails its CRC is removed, so that the next attempt downloads it again. */
async function* removedWhenUnreadable(
  ctx: Ctx,
  bytes: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  try {
    yield* bytes;
  } catch (error) {
    removeDownloads(ctx);
    throw error;
  }
}

/**
 * Removes the downloaded release files except `keep` (the file about to be read: its copy, partial copy and
 * download notes); without `keep`, the whole folder (a finished import).
 */
export function removeDownloads(ctx: Pick<Ctx, "config">, keep?: string): void {
  // Where downloads were kept before they went through the shared bulk download (an import cut off then).
  fs.rmSync(path.join(ctx.config.dataDir, "gov-br-cnpj"), { recursive: true, force: true });
  const dir = brDownloadDir(ctx);
  if (keep === undefined || !fs.existsSync(dir)) {
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  const kept = new Set([keep, `${keep}.part`, `${keep}.json`]);
  for (const name of fs.readdirSync(dir)) {
    if (!kept.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}
