// npm registry adapters. Sources: npm's registry API docs (github.com/npm/registry, docs/REGISTRY-API.md and
// docs/download-counts.md), the packument shape in the reference notes (upstreams-us.md §11), public client
// fixtures and issue threads (npm/cli `view` treats `time.unpublished` as E404; unknown names answer 404
// `{"error":"Not found"}`; the downloads API serves scoped names on the single-package `point` route with the
// slash unencoded). No key; no published rate limit (the registry sits behind a CDN and answers 429 under
// load), so requests are spaced and cached: packuments revalidated with If-None-Match after the freshness
// window, weekly downloads (which land once a day after UTC midnight) kept 12 hours.
// Terms: npm Open-Source Terms (https://docs.npmjs.com/policies/open-source-terms); package contents carry
// their own licences.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import type { CachedDocument, PutDocument } from "../../store/cache.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { packumentPath } from "./names.ts";
import {
  normaliseDownloads,
  normalisePackument,
  PackumentError,
  type StoredPackument,
  type WeeklyDownloads,
} from "./normalise.ts";

export const NPM_REGISTRY: UpstreamSpec = {
  name: "npm-registry",
  defaultBaseUrl: "https://registry.npmjs.org",
  maxConcurrent: 4,
  minIntervalMs: 50,
  timeoutMs: 15_000,
  retries: 1,
  maxRetryAfterMs: 5_000,
};

export const NPM_DOWNLOADS: UpstreamSpec = {
  name: "npm-downloads",
  defaultBaseUrl: "https://api.npmjs.org",
  maxConcurrent: 2,
  minIntervalMs: 100,
  timeoutMs: 10_000,
  retries: 1,
  maxRetryAfterMs: 5_000,
};

export const NPM_TERMS = {
  name: "npm Open-Source Terms (registry metadata); package contents carry their own licences",
  url: "https://docs.npmjs.com/policies/open-source-terms",
  attribution: "Package metadata from the npm public registry (npmjs.com)",
};

export const NPM_SOURCE: SourceInfo = {
  name: "npm public registry: packuments and the download-counts API",
  url: "https://registry.npmjs.org/",
  licence: NPM_TERMS,
  notice: "Metadata as published to the npm registry by package maintainers; not verified by this service.",
};

export const MISSING_TTL_MS = 10 * 60_000;
export const DOWNLOADS_TTL_MS = 12 * 3600_000;

export class NpmUnavailable extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

type Ctx = Pick<HandlerContext, "upstreams">;

function unavailable(error: unknown): NpmUnavailable {
  if (error instanceof NpmUnavailable) return error;
  if (error instanceof UpstreamError) return new NpmUnavailable(error.message, error.status);
  return new NpmUnavailable(`npm: ${String(error)}`);
}

export function packumentUrl(ctx: Ctx, name: string): string {
  return ctx.upstreams.client(NPM_REGISTRY).url({ path: packumentPath(name) });
}

export function downloadsPath(name: string): string {
  return `/downloads/point/last-week/${name}`;
}

export function downloadsUrl(ctx: Ctx, name: string): string {
  return ctx.upstreams.client(NPM_DOWNLOADS).url({ path: downloadsPath(name) });
}

/**
 * The packument as this service stores it; a previous copy's ETag makes the request conditional, and a 304
 * keeps that copy for another freshness window.
 */
export async function fetchPackument(
  ctx: Ctx,
  name: string,
  ttlMs: number,
  previous: CachedDocument<StoredPackument> | undefined,
): Promise<PutDocument<StoredPackument>> {
  const client = ctx.upstreams.client(NPM_REGISTRY);
  const conditional = previous && previous.body.kind !== "missing" ? previous.etag : null;
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({
      path: packumentPath(name),
      headers: { accept: "application/json" },
      etag: conditional,
    });
  } catch (error) {
    throw unavailable(error);
  }
  const now = new Date();
  const fetchedAt = now.toISOString();
  if (response.notModified && previous) {
    return { ...previous, expiresAt: new Date(now.getTime() + ttlMs).toISOString() };
  }
  if (response.status === 404) {
    return {
      body: { kind: "missing", name, checkedAt: fetchedAt },
      fetchedAt,
      expiresAt: new Date(now.getTime() + MISSING_TTL_MS).toISOString(),
      recordedSample: response.recordedSample,
    };
  }
  if (response.status !== 200) {
    throw new NpmUnavailable(`npm-registry: HTTP ${response.status} from ${response.url}`, response.status);
  }
  try {
    return {
      body: normalisePackument(response.body),
      fetchedAt,
      expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
      etag: response.headers.get("etag"),
      lastModified: response.headers.get("last-modified"),
      recordedSample: response.recordedSample,
    };
  } catch (error) {
    if (error instanceof PackumentError) throw new NpmUnavailable(`npm-registry: ${error.message}`, 200);
    throw error;
  }
}

/** Last week's downloads; null when the downloads API has no count for the package (its 404). */
export async function fetchWeeklyDownloads(
  ctx: Ctx,
  name: string,
): Promise<PutDocument<WeeklyDownloads | null>> {
  const client = ctx.upstreams.client(NPM_DOWNLOADS);
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({ path: downloadsPath(name), headers: { accept: "application/json" } });
  } catch (error) {
    throw unavailable(error);
  }
  const now = new Date();
  const base = {
    fetchedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + DOWNLOADS_TTL_MS).toISOString(),
    recordedSample: response.recordedSample,
  };
  if (response.status === 404) return { ...base, body: null };
  if (response.status !== 200) {
    throw new NpmUnavailable(`npm-downloads: HTTP ${response.status} from ${response.url}`, response.status);
  }
  try {
    return { ...base, body: normaliseDownloads(response.body) };
  } catch (error) {
    if (error instanceof PackumentError) throw new NpmUnavailable(`npm-downloads: ${error.message}`, 200);
    throw error;
  }
}
