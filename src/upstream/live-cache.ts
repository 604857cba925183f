// One upstream document cached by key and fetched live inside a paid call when missing or expired: the fetch
// is bounded (a buyer waits at most `timeoutMs`), shared by concurrent buyers of the same key in this process,
// allowed to finish in the background and fill the cache after the wait gave up, and the stale copy is
// served when the upstream fails. Used by the npm, weather, RDAP, USPTO and gov families.
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { errorText } from "../json.ts";
import type { CachedDocument, PutDocument } from "../store/cache.ts";
import type { Store } from "../store/store.ts";

export const LIVE_FETCH_TIMEOUT_MS = 8000;

export interface LiveCacheRequest<T> {
  cacheFamily: string;
  /** Where the outcome of each upstream fetch is recorded for the family's status route (default: cacheFamily). */
  healthKey?: string;
  key: string;
  timeoutMs?: number;
  /** Served from the cache without asking the upstream while this is true (default: expiresAt in the future). */
  isFresh?: (doc: CachedDocument<T>, now: Date) => boolean;
  /** Fetches the document; `previous` is the cached copy (for a conditional request with its ETag). */
  fetch: (previous: CachedDocument<T> | undefined) => Promise<PutDocument<T>>;
}

export type LiveCacheResult<T> =
  | { ok: true; doc: CachedDocument<T>; from: "cache" | "live" | "stale" }
  | { ok: false; error: unknown; timedOut: boolean };

/** What the cache needs of a handler's context (a HandlerContext fits). */
type Ctx = { store: Store };

const inFlight = new WeakMap<object, Map<string, Promise<CachedDocument<unknown>>>>();

function expiresInFuture(doc: CachedDocument<unknown>, now: Date): boolean {
  return doc.expiresAt !== null && Date.parse(doc.expiresAt) > now.getTime();
}

const HEALTH_FAMILY = "live-fetch-health";

/** The last good and failed upstream fetch of one family, shared by every node through the store. */
export interface FetchHealth {
  lastOkAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
}

export const FetchHealthAnswer = z
  .object({
    lastOkAt: z.iso.datetime().nullable().describe("Last upstream fetch that got an answer"),
    lastErrorAt: z.iso.datetime().nullable(),
    lastError: z.string().nullable().describe("What went wrong then"),
  })
  .describe("Upstream fetches made for buyers and warmers");

export async function readFetchHealth(ctx: Ctx, key: string): Promise<FetchHealth> {
  const doc = await ctx.store.cache.get<FetchHealth>(HEALTH_FAMILY, key);
  return { lastOkAt: null, lastErrorAt: null, lastError: null, ...doc?.body };
}

/** Records one upstream fetch: `error` undefined for a good one. */
export async function recordFetchHealth(
  ctx: Ctx,
  key: string,
  error: unknown | undefined,
  now = new Date(),
): Promise<void> {
  const at = now.toISOString();
  const health = await readFetchHealth(ctx, key);
  const next: FetchHealth =
    error === undefined
      ? { ...health, lastOkAt: at }
      : {
          ...health,
          lastErrorAt: at,
          lastError: errorText(error).slice(0, 300),
        };
  await ctx.store.cache.put(HEALTH_FAMILY, key, { body: next, fetchedAt: at });
}

interface FetchHealthOptions {
  /** A failure is recorded and thrown as a new Error, this prefix before its message (the original as cause). */
  failurePrefix?: string;
  /** A failure that is not the upstream's (a job slice stopped on time) is thrown without being recorded. */
  unrecorded?: (error: unknown) => boolean;
}

/**
 * Runs one upstream fetch (or a job's round of them) and records its outcome under `key` for the status routes:
 * the time of the last good one, or of the last failure with its message. Recording is best effort: a store that
 * cannot take it neither fails a good fetch nor hides the upstream's error.
 */
export async function withFetchHealth<T>(
  ctx: Ctx,
  key: string,
  fetch: () => Promise<T>,
  options: FetchHealthOptions = {},
): Promise<T> {
  let result: T;
  try {
    result = await fetch();
  } catch (error) {
    if (options.unrecorded?.(error)) throw error;
    const failure =
      options.failurePrefix === undefined
        ? error
        : new Error(`${options.failurePrefix}${errorText(error)}`, {
            cause: error,
          });
    await recordFetchHealth(ctx, key, failure).catch(() => undefined);
    throw failure;
  }
  await recordFetchHealth(ctx, key, undefined).catch(() => undefined);
  return result;
}

async function fetchAndStore<T>(
  ctx: Ctx,
  request: LiveCacheRequest<T>,
  previous: CachedDocument<T> | undefined,
): Promise<CachedDocument<T>> {
  const healthKey = request.healthKey ?? request.cacheFamily;
  const put = await withFetchHealth(ctx, healthKey, () => request.fetch(previous));
  const doc: CachedDocument<T> = {
    body: put.body,
    fetchedAt: put.fetchedAt,
    expiresAt: put.expiresAt ?? null,
    etag: put.etag ?? null,
    lastModified: put.lastModified ?? null,
    recordedSample: put.recordedSample ?? false,
  };
  await ctx.store.cache.put(request.cacheFamily, request.key, doc);
  return doc;
}

/** Fetches now (sharing a running fetch of the same key) and stores the answer. */
export function refreshOnce<T>(
  ctx: Ctx,
  request: LiveCacheRequest<T>,
  previous: CachedDocument<T> | undefined,
): Promise<CachedDocument<T>> {
  let running = inFlight.get(ctx.store);
  if (!running) {
    running = new Map();
    inFlight.set(ctx.store, running);
  }
  const memo = `${request.cacheFamily}\u0000${request.key}`;
  const existing = running.get(memo);
  if (existing) return existing as Promise<CachedDocument<T>>;
  const started = fetchAndStore(ctx, request, previous).finally(() => running.delete(memo));
  running.set(memo, started);
  return started;
}

/** The cached document while fresh; otherwise a live fetch within the bound; otherwise the stale copy. */
export async function liveCached<T>(
  ctx: Ctx,
  request: LiveCacheRequest<T>,
  now = new Date(),
): Promise<LiveCacheResult<T>> {
  const cached = await ctx.store.cache.get<T>(request.cacheFamily, request.key);
  const fresh = request.isFresh ?? expiresInFuture;
  if (cached && fresh(cached, now)) return { ok: true, doc: cached, from: "cache" };
  const running = refreshOnce(ctx, request, cached);
  const timer = new AbortController();
  try {
    const outcome = await Promise.race([
      running.then((doc) => ({ doc })),
      sleep(request.timeoutMs ?? LIVE_FETCH_TIMEOUT_MS, undefined, { signal: timer.signal }).then(
        () => ({ timedOut: true as const }),
        () => ({ timedOut: true as const }),
      ),
    ]);
    if ("doc" in outcome) return { ok: true, doc: outcome.doc, from: "live" };
    if (cached) return { ok: true, doc: cached, from: "stale" };
    return { ok: false, error: new Error("the upstream did not answer in time"), timedOut: true };
  } catch (error) {
    if (cached) return { ok: true, doc: cached, from: "stale" };
    return { ok: false, error, timedOut: false };
  } finally {
    timer.abort();
    running.catch(() => undefined);
  }
}
