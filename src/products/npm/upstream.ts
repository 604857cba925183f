// npm registry adapters. Sources: npm's registry API docs (github.com/npm/registry, docs/REGISTRY-API.md,
// docs/responses/package-metadata.md for the abbreviated packument, and docs/download-counts.md), public client
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
  type FullPackumentFacts,
  normaliseDownloads,
  normaliseFullFacts,
  normaliseManifest,
  normalisePackument,
  PackumentError,
  type StoredManifest,
  type StoredMissing,
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

const MISSING_TTL_MS = 10 * 60_000;
const DOWNLOADS_TTL_MS = 12 * 3600_000;

class NpmUnavailable extends Error {
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

/** The abbreviated packument, with the full one as the fallback of a registry (or mirror) that lacks it. */
export const ABBREVIATED_ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";

export function packumentUrl(ctx: Ctx, name: string): string {
  return ctx.upstreams.client(NPM_REGISTRY).url({ path: packumentPath(name) });
}

/** `/<name>/<version>`: one version's document (an exact version, never a dist-tag: the card resolves those). */
function manifestPath(name: string, version: string): string {
  return `${packumentPath(name)}/${encodeURIComponent(version)}`;
}

export function manifestUrl(ctx: Ctx, name: string, version: string): string {
  return ctx.upstreams.client(NPM_REGISTRY).url({ path: manifestPath(name, version) });
}

interface RegistryRequest<T> {
  path: string;
  accept: string;
  ttlMs: number;
  previous: CachedDocument<T | StoredMissing> | undefined;
  missing: () => StoredMissing;
  parse: (body: string) => T;
}

/**
 * One registry document, conditional on the previous copy's ETag (a 304 keeps that copy for another freshness
 * window); a 404 is stored as missing for MISSING_TTL_MS.
 */
async function fetchRegistryDocument<T>(
  ctx: Ctx,
  request: RegistryRequest<T>,
): Promise<PutDocument<T | StoredMissing>> {
  const { previous } = request;
  const client = ctx.upstreams.client(NPM_REGISTRY);
  const conditional =
    previous && (previous.body as { kind?: string }).kind !== "missing" ? previous.etag : null;
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({
      path: request.path,
      headers: { accept: request.accept },
      etag: conditional,
    });
  } catch (error) {
    throw unavailable(error);
  }
  const now = new Date();
  const fetchedAt = now.toISOString();
  if (response.notModified && previous) {
    return { ...previous, expiresAt: new Date(now.getTime() + request.ttlMs).toISOString() };
  }
  if (response.status === 404) {
    return {
      body: { ...request.missing(), checkedAt: fetchedAt },
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
      body: request.parse(response.body),
      fetchedAt,
      expiresAt: new Date(now.getTime() + request.ttlMs).toISOString(),
      etag: response.headers.get("etag"),
      lastModified: response.headers.get("last-modified"),
      recordedSample: response.recordedSample,
    };
  } catch (error) {
    if (error instanceof PackumentError) throw new NpmUnavailable(`npm-registry: ${error.message}`, 200);
    throw error;
  }
}

/** One version's document: description, licence, homepage, repository, maintainers of that version. */
export function fetchManifest(
  ctx: Ctx,
  name: string,
  version: string,
  ttlMs: number,
  previous: CachedDocument<StoredManifest | StoredMissing> | undefined,
): Promise<PutDocument<StoredManifest | StoredMissing>> {
  return fetchRegistryDocument(ctx, {
    path: manifestPath(name, version),
    accept: "application/json",
    ttlMs,
    previous,
    missing: () => ({ kind: "missing", name, checkedAt: "" }),
    parse: normaliseManifest,
  });
}

/** The full packument, kept only for its times (which no smaller document carries) and version facts. */
export function fetchFullFacts(
  ctx: Ctx,
  name: string,
  ttlMs: number,
  previous: CachedDocument<FullPackumentFacts | StoredMissing> | undefined,
): Promise<PutDocument<FullPackumentFacts | StoredMissing>> {
  return fetchRegistryDocument(ctx, {
    path: packumentPath(name),
    accept: "application/json",
    ttlMs,
    previous,
    missing: () => ({ kind: "missing", name, checkedAt: "" }),
    parse: normaliseFullFacts,
  });
}

export function downloadsPath(name: string): string {
  return `/downloads/point/last-week/${name}`;
}

export function downloadsUrl(ctx: Ctx, name: string): string {
  return ctx.upstreams.client(NPM_DOWNLOADS).url({ path: downloadsPath(name) });
}

/** The abbreviated packument as this service stores it: dist-tags, versions and what each needs to install. */
export async function fetchPackument(
  ctx: Ctx,
  name: string,
  ttlMs: number,
  previous: CachedDocument<StoredPackument> | undefined,
): Promise<PutDocument<StoredPackument>> {
  return fetchRegistryDocument(ctx, {
    path: packumentPath(name),
    accept: ABBREVIATED_ACCEPT,
    ttlMs,
    previous: previous as CachedDocument<StoredPackument> | undefined,
    missing: () => ({ kind: "missing", name, checkedAt: "" }),
    parse: normalisePackument,
  });
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
