// Receita Federal's CNPJ open data since January 2026: a Nextcloud public share (token YggdBLfdninEJX9) with one
// YYYY-MM folder per monthly release. The folders and their files are listed with WebDAV PROPFIND (Depth 1) on
// /public.php/webdav/ with the share token as the Basic-auth user and an empty password (207 Multi-Status,
// RFC 4918); files are read from the same path with GET, which accepts Range (a broken download continues).
// The shared UpstreamClient does GET on text only, so this module does its own requests with the client's
// rules: the User-Agent, the base URL setting, the spacing booked through the store's upstream budget, a
// timeout, and in replay mode the family's recordings (the listings) and the fixture zips in ./fixtures.
// Reference: upstreams-gov.md C7; the share layout and PROPFIND access as verified in public importers'
// notes (e.g. the CNPJ ingest research note quoting "PROPFIND with Depth: 1 and HTTP Basic YggdBLfdninEJX9:").
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { XMLParser } from "fast-xml-parser";
import { upstreamBaseUrl } from "../../../../config.ts";
import { UpstreamError, type UpstreamSpec } from "../../../../upstream/client.ts";
import { loadRecordings, RecordingIndex } from "../../../../upstream/recordings.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import type { Ctx } from "../register.ts";

export const BR_SHARE_TOKEN = "YggdBLfdninEJX9";
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

export function brBaseUrl(ctx: Pick<Ctx, "config">): string {
  return upstreamBaseUrl(ctx.config, BR_SPEC.name, BR_SPEC.defaultBaseUrl).replace(/\/+$/, "");
}

/** The share as people open it (answers' attribution and file URLs). */
export function brShareUrl(ctx: Pick<Ctx, "config">): string {
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
export function parseMultistatus(xml: string, folderPath: string): ShareItem[] {
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

/** Where a release's file is kept while it is imported. */
export function downloadPath(ctx: Pick<Ctx, "config">, release: string, file: string): string {
  return path.join(ctx.config.dataDir, "gov-br-cnpj", release, file);
}

/**
 * The zip of one release file as a byte stream. Live: downloaded into DATA_DIR first (a broken download
 * continues with Range where it stopped; `size` from the listing checks it is whole), then read from disk, so
 * that a resumed import re-reads the local copy. Replay: the fixture zip.
 */
export async function openReleaseFile(
  ctx: Ctx,
  release: string,
  file: string,
  size: number | null,
  signal?: AbortSignal,
): Promise<AsyncIterable<Uint8Array>> {
  if (ctx.upstreams.mode === "replay") {
    const fixture = path.join(BR_FIXTURES_DIR, release, file);
    if (!fs.existsSync(fixture)) {
      throw new UpstreamError(BR_SPEC.name, `no fixture ${release}/${file} (UPSTREAMS=replay)`, 404);
    }
    return fs.createReadStream(fixture);
  }
  const target = downloadPath(ctx, release, file);
  if (!fs.existsSync(target)) await download(ctx, release, file, target, size, signal);
  return fs.createReadStream(target);
}

/** Stops when `signal` fires (the part downloaded stays for the next attempt). */
async function download(
  ctx: Ctx,
  release: string,
  file: string,
  target: string,
  size: number | null,
  signal?: AbortSignal,
) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.part`;
  const url = `${brBaseUrl(ctx)}${WEBDAV}/${encodeURIComponent(release)}/${encodeURIComponent(file)}`;
  const have = fs.existsSync(partial) ? fs.statSync(partial).size : 0;
  if (size === null || have < size) {
    await bookStart(ctx);
    const headers: Record<string, string> = authHeaders(ctx);
    if (have > 0) headers.range = `bytes=${have}-`;
    const stall = new AbortController();
    let timer = setTimeout(() => stall.abort(), STALL_MS);
    const aborted = signal ? AbortSignal.any([stall.signal, signal]) : stall.signal;
    const response = await fetch(url, { headers, signal: aborted }).catch((error: unknown) => {
      clearTimeout(timer);
      throw new UpstreamError(BR_SPEC.name, `GET ${url} failed: ${String(error)}`);
    });
    if (response.status !== 200 && response.status !== 206) {
      clearTimeout(timer);
      await response.body?.cancel();
      throw new UpstreamError(BR_SPEC.name, `HTTP ${response.status} from GET ${url}`, response.status);
    }
    // A 200 to a ranged request is the whole file again: start the copy over.
    const out = fs.createWriteStream(partial, { flags: response.status === 206 ? "a" : "w" });
    try {
      for await (const chunk of Readable.fromWeb(response.body as never)) {
        clearTimeout(timer);
        timer = setTimeout(() => stall.abort(), STALL_MS);
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      }
    } catch (error) {
      throw new UpstreamError(BR_SPEC.name, `download of ${url} broke off: ${String(error)}`);
    } finally {
      clearTimeout(timer);
      await new Promise((resolve) => out.end(resolve));
    }
  }
  const got = fs.statSync(partial).size;
  if (size !== null && got !== size) {
    throw new UpstreamError(
      BR_SPEC.name,
      `${release}/${file}: downloaded ${got} bytes of ${size}; will continue`,
    );
  }
  fs.renameSync(partial, target);
}

/** Removes the downloaded files of a release except `keep` (the one being read). */
export function removeDownloads(ctx: Pick<Ctx, "config">, release: string | null, keep?: string): void {
  const root = path.join(ctx.config.dataDir, "gov-br-cnpj");
  if (!fs.existsSync(root)) return;
  for (const folder of fs.readdirSync(root)) {
    const dir = path.join(root, folder);
    if (folder !== release) {
      fs.rmSync(dir, { recursive: true, force: true });
      continue;
    }
    for (const name of fs.readdirSync(dir)) {
      if (name !== keep && name !== `${keep}.part`) fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}
