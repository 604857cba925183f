// GET /v1/ofac/sdn: screens a name against OFAC's SDN and consolidated lists, indexed in memory on this node.
import { type ErrorOutcome, notFound, ok, product } from "../../catalog/product.ts";
import { errorOutcome } from "../../errors.ts";
import { hitOf, listInfos, METHOD_TEXT, noHitMessage, OfacSdnAnswer } from "./answer.ts";
import { normaliseName } from "./names.ts";
import { DEFAULT_LIMIT, DEFAULT_MIN_SCORE, MAX_LIMIT, OfacSdnQuery } from "./query.ts";
import { OFAC_REFRESH_QUEUE, refreshAndIndex } from "./refresh.ts";
import type { LoadedIndex, OfacRuntime } from "./runtime.ts";
import { OFAC_NOTICE, OFAC_SOURCE } from "./upstream.ts";

/** How long the first download and indexing of the lists usually takes. */
const NOT_LOADED_RETRY_SEC = 120;

function notLoaded(): ErrorOutcome {
  return errorOutcome(
    "list_not_loaded",
    "The OFAC lists are not loaded on this service yet; their download has been queued and nothing was " +
      `charged. Try again in about ${NOT_LOADED_RETRY_SEC} seconds.`,
    { retryAfterSec: NOT_LOADED_RETRY_SEC },
  );
}

function noticeOf(recordedSample: boolean): string {
  if (!recordedSample) return OFAC_NOTICE;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: screened against a small recorded sample of OFAC's SDN.XML and " +
    `CONSOLIDATED.XML shapes (UPSTREAMS=replay), not against the current lists. ${OFAC_NOTICE}`
  );
}

export function ofacSdn(runtime: OfacRuntime) {
  /** In replay the recordings are loaded on first use; live, the download is queued for the worker. */
  async function loadedIndex(ctx: Parameters<Parameters<typeof product>[0]["handle"]>[1]) {
    const loaded = await runtime.current(ctx);
    if (loaded) return loaded;
    if (ctx.upstreams.mode === "replay") {
      await refreshAndIndex(ctx, runtime);
      return runtime.current(ctx, { force: true });
    }
    await ctx.store.jobs.enqueue(OFAC_REFRESH_QUEUE, "refresh", {});
    return undefined;
  }

  return product({
    sku: "ofac.sdn",
    method: "GET",
    path: "/v1/ofac/sdn",
    summary: "Screen a name against OFAC's SDN and consolidated sanctions lists, with scored, explained hits",
    description:
      "Screens a person, company, vessel or aircraft name against the US Treasury's OFAC SDN list and its " +
      "consolidated non-SDN lists with paycall's own 0-100 score, modelled on OFAC's Sanctions List Search " +
      "(FAQ 249) but capped at the query's least-matched part, so not the score OFAC's tool shows: the answer's " +
      "`method` lists every difference, and each match also gives FAQ 249's uncappedScore. Each hit names the " +
      "name or alias that matched, its method and score, and carries the " +
      "entry's programs, addresses, identifiers, birth dates, vessel details and the list's publish date. " +
      "Weak aliases are flagged and never make a hit alone. The lists are refreshed when OFAC publishes. " +
      `limit default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}; minScore default ${DEFAULT_MIN_SCORE}. No hit is a ` +
      "200 with match:false (charged). A hit is a potential match to review, not a finding.",
    status: "live",
    tags: ["sanctions", "ofac", "sdn", "compliance", "screening", "us"],
    price: "0.01",
    query: OfacSdnQuery,
    answer: OfacSdnAnswer,
    sample: { q: "AEROCARIBBEAN AIRLINES" },
    source: OFAC_SOURCE,

    async check({ query }, ctx) {
      if (query.uid === undefined) return undefined;
      const loaded = runtime.snapshot ?? (await runtime.current(ctx));
      if (loaded && !loaded.index.hasUid(query.uid)) {
        return notFound(
          `uid ${query.uid} is not an entry of the SDN or consolidated lists; nothing was charged`,
        );
      }
      return undefined;
    },

    async handle({ query }, ctx) {
      const loaded: LoadedIndex | undefined = await loadedIndex(ctx);
      if (!loaded) return notLoaded();
      if (query.uid !== undefined && !loaded.index.hasUid(query.uid)) {
        return notFound(
          `uid ${query.uid} is not an entry of the SDN or consolidated lists; nothing was charged`,
        );
      }
      const minScore = query.minScore ?? DEFAULT_MIN_SCORE;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const result = loaded.index.screen(query.q, {
        minScore,
        limit,
        ...(query.uid !== undefined ? { uid: query.uid } : {}),
      });
      const lists = listInfos(loaded.lists);
      const fetchedAt =
        lists
          .map((l) => l.fetchedAt)
          .sort()
          .at(-1) ?? loaded.builtAt;
      const match = result.hits.length > 0;
      return ok({
        query: query.q,
        normalisedQuery: normaliseName(query.q).text,
        minScore,
        limit,
        uid: query.uid ?? null,
        match,
        hits: result.hits.map((hit) => hitOf(hit, loaded.lists)),
        count: result.hits.length,
        totalHits: result.totalHits,
        weakAliasOnly: result.weakAliasOnly,
        ...(match ? {} : { message: noHitMessage(minScore, result) }),
        lists,
        listVersion: loaded.version,
        scoreOrigin: "paycall" as const,
        method: METHOD_TEXT,
        fetchedAt,
        source: OFAC_SOURCE.url,
        notice: noticeOf(loaded.recordedSample),
      });
    },
  });
}
