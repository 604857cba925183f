// GET /v1/macro/ecb/fx: one currency's daily euro reference rates (about three months) from the cache
// the ecb.fx warmer fills.
import { z } from "zod";
import { badRequest, notCached, ok, product } from "../../catalog/product.ts";
import { ECB_ATTRIBUTION, ECB_SOURCE } from "./upstream.ts";
import { type CachedSeries, ECB_FAMILY, ECB_FX_WARMER, ECB_INDEX_KEY, type EcbIndex } from "./warmer.ts";

/** Seconds a buyer should wait after a miss: the warmer makes one request to the ECB. */
export const FX_RETRY_AFTER_SEC = 60;

const PAIR = /^(?:EUR[/-]?)?([A-Z]{3})$/;
const INVERSE_PAIR = /^([A-Z]{3})[/-]?EUR$/;

/** `USD`, `usd`, `EURUSD`, `EUR/USD`, `EUR-USD` → `{ quote: "USD" }`; anything else → an error sentence. */
export function parsePair(raw: string): { quote: string } | { error: string } {
  const value = raw.trim().toUpperCase();
  if (value === "")
    return { error: "pair is required: a currency code such as USD (or EURUSD, EUR/USD, EUR-USD)" };
  const quote = value.match(PAIR)?.[1];
  if (quote === "EUR") {
    return {
      error:
        "pair names the quoted currency: the base is always EUR (rates are units of the currency per 1 euro), so ask for e.g. USD or EURUSD",
    };
  }
  if (quote) return { quote };
  const inverse = value.match(INVERSE_PAIR)?.[1];
  if (inverse) {
    return {
      error: `pair ${JSON.stringify(raw.trim())} puts EUR second; the ECB quotes ${inverse} per 1 EUR, so ask for EUR${inverse} (or ${inverse}) and take 1/rate for the inverse`,
    };
  }
  return {
    error: `pair must be a 3-letter currency code such as USD, optionally prefixed by EUR as in EURUSD, EUR/USD or EUR-USD; got ${JSON.stringify(raw.trim().slice(0, 40))}`,
  };
}

export const EcbFxQuery = z.object({
  pair: z
    .string({ error: "pair is required: a currency code such as USD (or EURUSD, EUR/USD, EUR-USD)" })
    .describe("Quoted currency against the euro: USD, EURUSD, EUR/USD or EUR-USD (alias: currency)")
    .transform((raw, ctx) => {
      const parsed = parsePair(raw);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.quote;
    }),
});

const FxObservation = z.object({
  date: z.iso.date().describe("TARGET business day, YYYY-MM-DD"),
  rate: z.number().positive().describe("Units of the quoted currency per 1 euro"),
});

export const EcbFxAnswer = z.object({
  ok: z.literal(true),
  pair: z
    .string()
    .regex(/^EUR[A-Z]{3}$/)
    .describe("EUR followed by the quoted currency, e.g. EURUSD"),
  base: z.literal("EUR"),
  quote: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .describe("ISO 4217 code of the quoted currency"),
  currency: z.string().describe("Name of the quoted currency as the ECB titles it, e.g. US dollar"),
  latest: FxObservation.describe("The most recent reference rate"),
  count: z.number().int().nonnegative().describe("Number of observations"),
  observations: z.array(FxObservation).describe("Daily reference rates in date order, about three months"),
  source: z.url().describe("The ECB Data Portal API URL the rates were fetched from"),
  fetchedAt: z.iso.datetime().describe("When the rates were fetched from the ECB"),
  notice: z.string().describe("ECB attribution and disclaimer; says so when the data is a recorded sample"),
});

function fxNotice(quote: string, recordedSample: boolean): string {
  const attribution =
    `${ECB_ATTRIBUTION} (https://data.ecb.europa.eu/). Euro foreign exchange reference rates, ${quote} per 1 EUR; ` +
    "the ECB publishes its reference rates for information purposes only.";
  if (!recordedSample) return attribution;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: these rates come from a recorded sample of the ECB's documented response shape " +
    `(UPSTREAMS=replay) and are placeholders, not rates published by the ECB. ${attribution}`
  );
}

export const ecbFx = product({
  sku: "macro.ecb.fx",
  method: "GET",
  path: "/v1/macro/ecb/fx",
  summary: "Euro reference exchange rate for one currency, with about three months of daily history",
  description:
    "The European Central Bank's daily euro foreign exchange reference rate for one currency (units of the " +
    "currency per 1 EUR): the latest rate and about three months of daily observations in date order. " +
    "Rates are published around 16:00 CET on TARGET business days and refreshed daily. " +
    "Pass the quoted currency as pair (USD, EURUSD, EUR/USD or EUR-USD; alias currency).",
  status: "live",
  tags: ["macro", "fx", "ecb"],
  price: "0.005",
  query: EcbFxQuery,
  aliases: { currency: "pair" },
  answer: EcbFxAnswer,
  sample: { pair: "USD" },
  source: ECB_SOURCE,

  async check({ query }, ctx) {
    const index = await ctx.store.cache.getRecent<EcbIndex>(ECB_FAMILY, ECB_INDEX_KEY, 30_000);
    if (!index) return undefined;
    const known = index.body.currencies.map((c) => c.currency);
    if (known.includes(query.pair)) return undefined;
    return badRequest(
      "pair",
      `The ECB publishes no euro reference rate for ${query.pair}; pair must be one of the known currencies.`,
      {
        known,
      },
    );
  },

  async handle({ query }, ctx) {
    // Published once a day: a paid call need not cost a store read each time. A miss is not remembered: the
    // worker (on any node) fills it, and the buyer's retry must find it.
    const doc = await ctx.store.cache.getRecent<CachedSeries>(ECB_FAMILY, query.pair, 30_000, {
      rememberMiss: false,
    });
    const latest = doc?.body.observations.at(-1);
    if (!doc || !latest) {
      await ctx.store.jobs.enqueue("warmer", ECB_FX_WARMER, { warmer: ECB_FX_WARMER });
      return notCached(
        `The euro reference rates for ${query.pair} are not cached yet; they have been queued for fetching from the ECB. ` +
          `Try again in about ${FX_RETRY_AFTER_SEC} seconds.`,
        FX_RETRY_AFTER_SEC,
      );
    }
    const series = doc.body;
    return ok({
      ok: true as const,
      pair: `EUR${series.currency}`,
      base: "EUR" as const,
      quote: series.currency,
      currency: series.title,
      latest,
      count: series.observations.length,
      observations: series.observations,
      source: series.source,
      fetchedAt: doc.fetchedAt,
      notice: fxNotice(series.currency, doc.recordedSample),
    });
  },
});
