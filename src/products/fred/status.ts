// GET /v1/macro/fred/status (free): the FRED warmer, the fetch-on-miss queue and the cache.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { readAllSummaries, SERIES_QUEUE } from "./documents.ts";
import type { FredSettings } from "./settings.ts";
import { canFetchFred, FRED_SOURCE, FRED_UPSTREAM, FredNotConfiguredError } from "./upstream.ts";
import { FRED_WARMER, FRED_WARMER_EVERY_MS } from "./warmer.ts";

/** Fresh while the warmer's last success is at most this old (runs every 6 hours, with slack). */
const FRED_FRESH_WITHIN_MS = 2 * FRED_WARMER_EVERY_MS;

export const FredStatusAnswer = z.object({
  ok: z.literal(true),
  configured: z
    .boolean()
    .describe(
      "This service can fetch from FRED: UPSTREAMS=replay, or live with the operator's redistribution permission (FRED_REDISTRIBUTION=permitted) and an API key",
    ),
  problem: z
    .string()
    .nullable()
    .describe("Why nothing can be fetched, when that is so, with the link to FRED's terms or key page"),
  warmer: WarmerStatusAnswer,
  queue: z
    .object({
      queued: z.number().int(),
      running: z.number().int(),
      done: z.number().int(),
      dead: z.number().int(),
    })
    .describe("Series fetched on request (fred-series jobs)"),
  warmedSeries: z.array(z.string()),
  cachedSeries: z.number().int().nonnegative(),
  refusedSeries: z.number().int().nonnegative(),
  unknownSeries: z.number().int().nonnegative(),
  fresh: z.boolean(),
  upstream: z.url(),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export function fredStatusProduct(settings: FredSettings) {
  return product({
    sku: "macro.fred.status",
    method: "GET",
    path: "/v1/macro/fred/status",
    summary: "Status of the FRED series cache (free)",
    description:
      "Free. Whether FRED can be fetched (the St. Louis Fed's permission declared and an API key configured), the warmer's last run, success and error, the " +
      "fetch-on-request queue, and how many series are cached, refused or unknown.",
    status: "live",
    tags: ["macro", "fred", "status"],
    price: "0",
    answer: FredStatusAnswer,
    source: FRED_SOURCE,

    async handle(_input, ctx) {
      const now = new Date();
      const [runs, queue, summaries] = await Promise.all([
        warmerStatus(ctx, { name: FRED_WARMER, everyMs: FRED_WARMER_EVERY_MS }),
        ctx.store.jobs.counts(SERIES_QUEUE),
        readAllSummaries(ctx.store),
      ]);
      const configured = canFetchFred(ctx, settings);
      const lastSuccess = runs.lastSuccessAt ? Date.parse(runs.lastSuccessAt) : Number.NaN;
      const count = (status: string) => summaries.filter((d) => d.body.status === status).length;
      return ok({
        ok: true as const,
        configured,
        problem: configured ? null : new FredNotConfiguredError(settings).message,
        warmer: runs,
        queue,
        warmedSeries: settings.series,
        cachedSeries: count("ok"),
        refusedSeries: count("refused"),
        unknownSeries: count("missing"),
        fresh: now.getTime() - lastSuccess <= FRED_FRESH_WITHIN_MS,
        upstream: ctx.upstreams.client(FRED_UPSTREAM).baseUrl,
        mode: ctx.upstreams.mode,
        generatedAt: now.toISOString(),
      });
    },
  });
}
