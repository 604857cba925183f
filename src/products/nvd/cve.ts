// GET /v1/nvd/cve: one CVE record by id (fetched on a miss), or a keyword search over recent CVEs.
import { z } from "zod";
import { type HandlerContext, notCached, notFound, ok, product } from "../../catalog/product.ts";
import type { Store } from "../../store/store.ts";
import { Timestamp } from "./answer-types.ts";
import { CVE_LOOKUP_QUEUE } from "./lookup.ts";
import { CVE_ID } from "./normalise.ts";
import { CveHitSchema, CveRecordAnswer, cveHitOf, cveRecordOf, nvdNotice } from "./record.ts";
import { type CveRow, NvdRepository } from "./repository.ts";
import { NVD_SYNC_WARMER, type NvdRuntime } from "./runtime.ts";
import { MAX_QUERY_TERMS, wordsOf } from "./search-index.ts";
import { CVE_SYNC_STATE, type CveSyncState } from "./sync-state.ts";
import { NVD_CVES_PATH, NVD_SOURCE, nvdUpstream } from "./upstream.ts";
import { DAY_MS } from "./windows.ts";

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;
/** A queued lookup waits for the worker and NVD's request spacing (6.5 s without a key). */
export const LOOKUP_RETRY_AFTER_SEC = 60;
/** Before the first sync, a search waits for the first window's pages. */
export const SYNC_RETRY_AFTER_SEC = 180;
/** NVD's answer that it has no such record is trusted this long before asking again. */
const MISSING_RECHECK_MS = DAY_MS;
/** The spec's freshness promise for CVE records. */
export const FRESH_WITHIN_MS = 2 * DAY_MS;

const ID_MESSAGE = "id must be a CVE id such as CVE-2021-44228";
const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_LIMIT}`;

export const CveQuery = z
  .object({
    id: z
      .string()
      .trim()
      .toUpperCase()
      .refine((value) => CVE_ID.test(value), ID_MESSAGE)
      .optional()
      .describe("A CVE id, e.g. CVE-2021-44228 (give id or q)"),
    q: z
      .string()
      .trim()
      .min(1, "q must not be empty: give keywords such as 'apache log4j'")
      .max(200, "q must be at most 200 characters")
      .refine((value) => wordsOf(value).length > 0, "q must contain a word made of letters or digits")
      .refine(
        (value) => wordsOf(value).length <= MAX_QUERY_TERMS,
        `q must have at most ${MAX_QUERY_TERMS} words`,
      )
      .optional()
      .describe(
        "Keywords; every word must match the CVE's id, description, CWE ids or affected vendors and products",
      ),
    limit: z.coerce
      .number({ error: LIMIT_MESSAGE })
      .int(LIMIT_MESSAGE)
      .min(1, LIMIT_MESSAGE)
      .max(MAX_LIMIT, LIMIT_MESSAGE)
      .optional()
      .describe(`Most hits returned by a keyword search (q); default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}`),
  })
  .superRefine((query, ctx) => {
    if (query.id === undefined && query.q === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["id"],
        message: "give id (a CVE id such as CVE-2021-44228) or q (keywords over recent CVEs)",
      });
    } else if (query.id !== undefined && query.q !== undefined) {
      ctx.addIssue({ code: "custom", path: ["q"], message: "give either id or q, not both" });
    } else if (query.id !== undefined && query.limit !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["limit"],
        message: "limit applies to keyword searches (q) only",
      });
    }
  });

export const CveSearchAnswer = z.object({
  ok: z.literal(true),
  query: z.string(),
  terms: z.array(z.string()).describe("Tokens every hit contains"),
  match: z.boolean(),
  count: z.number().int().nonnegative(),
  totalCount: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  ranking: z.string(),
  results: z.array(CveHitSchema),
  window: z
    .object({ days: z.number().int().positive(), from: Timestamp, to: Timestamp })
    .describe("Last-modified window searched"),
  source: z.url(),
  fetchedAt: Timestamp,
  notice: z.string(),
  message: z.string().optional().describe("When there are no hits"),
});

/**
 * What the catalog declares: one object, as discovery clients expect. An id lookup answers the
 * CveRecordAnswer fields, a keyword search the CveSearchAnswer ones; both carry ok, source, fetchedAt, notice.
 */
const CveAnswer = z
  .object({ ...CveRecordAnswer.shape, ...CveSearchAnswer.shape })
  .partial()
  .required({ ok: true, source: true, fetchedAt: true, notice: true })
  .describe("id: the record (id … url); q: the search (query … results, window, message)");

/** A record is current when the sync has covered every change since it was fetched, or it is recent enough. */
function isCurrent(row: CveRow, state: CveSyncState | undefined, now: number): boolean {
  if (now - Date.parse(row.fetched_at) <= FRESH_WITHIN_MS) return true;
  if (!state?.coveredSince || !state.syncedThrough) return false;
  return row.fetched_at >= state.coveredSince && now - Date.parse(state.syncedThrough) <= FRESH_WITHIN_MS;
}

async function queueLookup(store: Store, id: string): Promise<void> {
  await store.jobs.enqueue(CVE_LOOKUP_QUEUE, id, { id });
}

async function answerId(id: string, ctx: HandlerContext, runtime: NvdRuntime) {
  const repository = NvdRepository.of(ctx.store);
  const row = await repository.getCve(id);
  const client = ctx.upstreams.client(nvdUpstream(runtime.settings));
  if (row) {
    const [kev, state] = await Promise.all([
      repository.getKev([id]),
      repository.getState<CveSyncState>(CVE_SYNC_STATE),
    ]);
    // Stale: still the best answer there is, and a refresh is queued.
    if (!isCurrent(row, state, Date.now())) await queueLookup(ctx.store, id);
    return ok(cveRecordOf(row, kev.get(id), client.url({ path: NVD_CVES_PATH, query: { cveId: id } })));
  }
  const missingSince = await repository.missingSince(id);
  if (missingSince && Date.now() - Date.parse(missingSince) < MISSING_RECHECK_MS) {
    return notFound(
      `NVD has no record of ${id} (checked ${missingSince}). Reserved ids get a record only once published; ` +
        "it will be checked again a day after that check.",
      { id, checkedAt: missingSince },
    );
  }
  await queueLookup(ctx.store, id);
  return notCached(
    `${id} is not cached yet; it has been queued for fetching from NVD. Try again in about ${LOOKUP_RETRY_AFTER_SEC} seconds.`,
    LOOKUP_RETRY_AFTER_SEC,
    { id },
  );
}

async function answerSearch(q: string, limit: number, ctx: HandlerContext, runtime: NvdRuntime) {
  const loaded = await runtime.search.current(ctx);
  const { from, to } = loaded.window;
  if (!from || !to) {
    await ctx.store.jobs.enqueue("warmer", NVD_SYNC_WARMER, { warmer: NVD_SYNC_WARMER });
    return notCached(
      `The recent CVE window has not been synced from NVD yet; the sync has been queued. Try again in about ${SYNC_RETRY_AFTER_SEC} seconds.`,
      SYNC_RETRY_AFTER_SEC,
    );
  }
  const result = loaded.index.search(q, limit);
  const repository = NvdRepository.of(ctx.store);
  const [rows, kev] = await Promise.all([repository.getCves(result.ids), repository.getKev(result.ids)]);
  const hits = result.ids.flatMap((id) => {
    const row = rows.get(id);
    return row ? [{ row, hit: cveHitOf(row, kev.get(id)) }] : [];
  });
  const recordedSample = ctx.upstreams.mode === "replay" || hits.some(({ row }) => row.recorded_sample === 1);
  const client = ctx.upstreams.client(nvdUpstream(runtime.settings));
  return ok({
    ok: true as const,
    query: q,
    terms: result.terms,
    match: hits.length > 0,
    count: hits.length,
    totalCount: result.total,
    limit,
    ranking: "newest published first; the same instant: the higher CVE number first",
    results: hits.map(({ hit }) => hit),
    window: { days: runtime.settings.recentDays, from, to },
    source: client.url({ path: NVD_CVES_PATH }),
    fetchedAt: loaded.fetchedAt ?? loaded.builtAt,
    notice: nvdNotice(recordedSample),
    ...(hits.length === 0
      ? {
          message: `No CVE last modified in the ${runtime.settings.recentDays} days up to ${to} matches every word of "${q}".`,
        }
      : {}),
  });
}

export function cveProduct(runtime: NvdRuntime) {
  return product({
    sku: "nvd.cve",
    method: "GET",
    path: "/v1/nvd/cve",
    summary: "A CVE record by id, or a keyword search over recent CVEs, with known-exploited status",
    description:
      "One CVE from the NIST National Vulnerability Database (NVD) by id: status, severity and CVSS base score " +
      "(from CVSS v4.0, then v3.1, v3.0, v2), description, CWEs, affected vendors and products, references, and " +
      "whether it is on CISA's Known Exploited Vulnerabilities catalogue (date added, due date). An id not cached " +
      "yet is queued and answered 404, not charged, with retryAfterSec. Or q: keywords over the CVEs modified in " +
      `the recent window (default ${runtime.settings.recentDays} days), every word must match, newest first, ` +
      `limit default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}. Records are refreshed within about 48 hours. ` +
      "Give exactly one of id or q.",
    status: "live",
    tags: ["security", "cve", "nvd", "kev"],
    price: "0.005",
    query: CveQuery,
    answer: CveAnswer,
    sample: { id: "CVE-2021-44228" },
    source: NVD_SOURCE,

    async handle({ query }, ctx) {
      if (query.id !== undefined) return answerId(query.id, ctx, runtime);
      return answerSearch(query.q ?? "", query.limit ?? DEFAULT_LIMIT, ctx, runtime);
    },
  });
}
