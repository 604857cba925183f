// The `ticker` / `cik` parameters shared by the EDGAR endpoints, and turning them into a CIK from the cache.
import { z } from "zod";
import {
  badRequest,
  type ErrorOutcome,
  type HandlerContext,
  notCached,
  notFound,
} from "../../catalog/product.ts";
import { EDGAR_FAMILY, missingKey, tickerList } from "./edgar-store.ts";
import { normaliseCik, normaliseTicker } from "./identifiers.ts";
import { enqueueCompany } from "./jobs.ts";
import { directoryFor } from "./tickers.ts";
import { unlessSecBlocked } from "./upstream.ts";
import { TICKERS_WARMER } from "./warmers.ts";

/** Seconds a buyer should wait after a miss: a company takes a few SEC requests at 8 a second. */
export const COMPANY_RETRY_AFTER_SEC = 60;
const MISSING_MARK_MS = 24 * 3600_000;

export const TickerParam = z
  .string()
  .describe("Ticker symbol as SEC lists it, e.g. AAPL or BRK-B (BRK.B is accepted)")
  .transform((raw, ctx) => {
    const ticker = normaliseTicker(raw);
    if (!ticker) {
      ctx.addIssue({
        code: "custom",
        message: `ticker must be a ticker symbol such as AAPL or BRK-B, got ${JSON.stringify(raw.trim().slice(0, 20))}`,
      });
      return z.NEVER;
    }
    return ticker;
  });

export const CikParam = z
  .string()
  .describe(
    "SEC Central Index Key, with or without leading zeros or the CIK prefix, e.g. 320193 or CIK0000320193",
  )
  .transform((raw, ctx) => {
    const cik = normaliseCik(raw);
    if (!cik) {
      ctx.addIssue({
        code: "custom",
        message: `cik must be SEC's Central Index Key: 1 to 10 digits, e.g. 320193, got ${JSON.stringify(raw.trim().slice(0, 20))}`,
      });
      return z.NEVER;
    }
    return cik;
  });

interface CompanySelector {
  ticker?: string;
  cik?: string;
}

/** Adds the 400 for giving both, or (when `required`) neither, of ticker and cik. */
export function checkOneCompany(value: CompanySelector, ctx: z.RefinementCtx, required: boolean): void {
  if (value.ticker !== undefined && value.cik !== undefined)
    ctx.addIssue({ code: "custom", path: ["cik"], message: "give ticker or cik, not both" });
  else if (required && value.ticker === undefined && value.cik === undefined)
    ctx.addIssue({ code: "custom", path: ["ticker"], message: "ticker or cik is required (give one)" });
}

/** Before payment: a ticker SEC does not list is a 400 (only once the ticker list is cached). */
export async function checkTicker(
  ctx: HandlerContext,
  ticker: string | undefined,
): Promise<ErrorOutcome | undefined> {
  if (ticker === undefined) return undefined;
  const list = await tickerList(ctx);
  if (!list || directoryFor(list.body).ticker(ticker)) return undefined;
  return badRequest(
    "ticker",
    `SEC's ticker file lists no ticker ${ticker}; find the company with /v1/edgar/search or pass its cik.`,
  );
}

/** The CIK a request names, or the outcome to answer when it cannot be known yet. */
export async function resolveCik(
  ctx: HandlerContext,
  selector: CompanySelector,
): Promise<{ cik: string } | { outcome: ErrorOutcome }> {
  if (selector.cik) return { cik: selector.cik };
  const ticker = selector.ticker ?? "";
  const list = await tickerList(ctx);
  if (!list) {
    await ctx.store.jobs.enqueue("warmer", TICKERS_WARMER, { warmer: TICKERS_WARMER });
    return {
      outcome: await unlessSecBlocked(
        ctx,
        notCached(
          `SEC's ticker list is not cached yet, so ${ticker} cannot be looked up; it has been queued for fetching. ` +
            `Try again in about ${COMPANY_RETRY_AFTER_SEC} seconds, or pass cik.`,
          COMPANY_RETRY_AFTER_SEC,
        ),
      ),
    };
  }
  const entry = directoryFor(list.body).ticker(ticker);
  if (!entry) return { outcome: (await checkTicker(ctx, ticker)) as ErrorOutcome };
  return { cik: entry.cik };
}

/** A company that is not cached: unknown to SEC (404), or queued for fetching (404 with retryAfterSec). */
export async function companyMiss(ctx: HandlerContext, cik: string, what: string): Promise<ErrorOutcome> {
  const missing = await ctx.store.cache.get(EDGAR_FAMILY, missingKey(cik));
  if (missing && Date.now() - Date.parse(missing.fetchedAt) < MISSING_MARK_MS)
    return notFound(`SEC has no company with CIK ${cik} (its submissions file does not exist).`, { cik });
  await enqueueCompany(ctx, cik);
  return unlessSecBlocked(
    ctx,
    notCached(
      `The ${what} of CIK ${cik} is not cached yet; the company has been queued for fetching from SEC EDGAR. ` +
        `Try again in about ${COMPANY_RETRY_AFTER_SEC} seconds.`,
      COMPANY_RETRY_AFTER_SEC,
      { cik },
    ),
  );
}
