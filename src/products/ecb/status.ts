// GET /v1/macro/ecb/status (free): how the ECB FX warmer and its cache are doing.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { latestPublicationDay } from "./schedule.ts";
import { ECB_SOURCE, ECB_UPSTREAM } from "./upstream.ts";
import { ECB_FAMILY, ECB_INDEX_KEY, type EcbIndex, ecbFxWarmer } from "./warmer.ts";

/** Recorded samples count as fresh while the warmer's last success is at most this old. */
const FRESH_WITHIN_MS = 2 * 24 * 3600_000;

/**
 * Live rates are fresh while they include the latest publication (so a weekend or a holiday never makes them
 * stale); recorded samples, whose dates are fixed, while the warmer succeeded within two days.
 */
export function isFresh(
  index: Pick<CachedDocument<EcbIndex>, "body" | "recordedSample"> | undefined,
  lastSuccessMs: number,
  now: Date,
): boolean {
  if (!index) return false;
  if (index.recordedSample) return now.getTime() - lastSuccessMs <= FRESH_WITHIN_MS;
  return (index.body.latestDate ?? "") >= latestPublicationDay(now);
}

const Timestamp = z.iso.datetime().nullable();

export const EcbStatusAnswer = z.object({
  ok: z.literal(true),
  warmer: WarmerStatusAnswer.describe("The ecb.fx warmer, which fetches every currency once a day"),
  currencies: z.number().int().nonnegative().describe("Currencies with cached reference rates"),
  latestDate: z.iso.date().nullable().describe("Most recent observation date in the cache"),
  fetchedAt: Timestamp.describe("When the cached rates were fetched"),
  recordedSample: z
    .boolean()
    .describe("True when the cached rates come from a recorded sample, not the live ECB"),
  fresh: z
    .boolean()
    .describe(
      "Live: the cache holds the rates of the latest publication (about 16:00 CET on TARGET days); recorded samples: the warmer succeeded within two days",
    ),
  upstream: z.url().describe("Base URL of the ECB Data Portal API this service fetches from"),
  mode: z.enum(["live", "replay"]).describe("live: real upstream; replay: recorded samples"),
  generatedAt: z.iso.datetime(),
});

export const ecbStatus = product({
  sku: "macro.ecb.status",
  method: "GET",
  path: "/v1/macro/ecb/status",
  summary: "Status of the ECB euro FX cache (free)",
  description:
    "Free. The ECB FX warmer's last run, last success and last error with its counts, the number of cached " +
    "currencies, the latest observation date, whether the cache is fresh, and the upstream in use.",
  status: "live",
  tags: ["macro", "fx", "ecb", "status"],
  price: "0",
  answer: EcbStatusAnswer,
  source: ECB_SOURCE,

  async handle(_input, ctx) {
    const now = new Date();
    const [runs, index] = await Promise.all([
      warmerStatus(ctx, ecbFxWarmer),
      ctx.store.cache.get<EcbIndex>(ECB_FAMILY, ECB_INDEX_KEY),
    ]);
    const lastSuccess = runs.lastSuccessAt ? Date.parse(runs.lastSuccessAt) : Number.NaN;
    return ok({
      ok: true as const,
      warmer: runs,
      currencies: index?.body.currencies.length ?? 0,
      latestDate: index?.body.latestDate ?? null,
      fetchedAt: index?.fetchedAt ?? null,
      recordedSample: index?.recordedSample ?? false,
      fresh: isFresh(index, lastSuccess, now),
      upstream: ctx.upstreams.client(ECB_UPSTREAM).baseUrl,
      mode: ctx.upstreams.mode,
      generatedAt: now.toISOString(),
    });
  },
});
