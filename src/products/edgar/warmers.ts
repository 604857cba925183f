// Daily warmers: SEC's ticker file, and the configured companies (submissions, company facts, derived
// financials). Companies fetched on request are refreshed daily too, as queued jobs.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { errorText } from "../../json.ts";
import { companyRecords, EDGAR_FAMILY, TICKERS_KEY, tickerList } from "./edgar-store.ts";
import { COMPANY_QUEUE } from "./jobs.ts";
import { refreshCompany } from "./refresh.ts";
import type { EdgarSettings } from "./settings.ts";
import { directoryFor, normaliseTickerFile, type TickerList } from "./tickers.ts";
import { fetchSecJson, SEC_WWW_UPSTREAM, TICKERS_PATH } from "./upstream.ts";

export const TICKERS_WARMER = "edgar.tickers";
const COMPANIES_WARMER = "edgar.companies";
const DAILY_MS = 24 * 3600_000;
/** Companies fetched on request are refreshed once their data is this old. */
const STALE_AFTER_MS = 20 * 3600_000;

type WarmContext = Pick<HandlerContext, "upstreams" | "store">;

async function warmTickers(
  ctx: WarmContext,
  settings: EdgarSettings,
): Promise<{ tickers: number; companies: number }> {
  const fetched = await fetchSecJson<unknown>(ctx, SEC_WWW_UPSTREAM, TICKERS_PATH, settings.userAgent);
  const entries = normaliseTickerFile(fetched?.body);
  if (entries.length === 0) throw new Error(`SEC's ticker file at ${fetched?.url} lists no companies`);
  await ctx.store.cache.put<TickerList>(EDGAR_FAMILY, TICKERS_KEY, {
    body: { source: fetched?.url ?? "", entries },
    fetchedAt: new Date().toISOString(),
    recordedSample: fetched?.recordedSample ?? false,
  });
  return { tickers: entries.length, companies: new Set(entries.map((e) => e.cik)).size };
}

interface CompaniesCounts {
  refreshed: number;
  withFinancials: number;
  filings: number;
  failed: Array<{ ticker: string; error: string }>;
  queuedRefreshes: number;
  [key: string]: unknown;
}

export async function warmCompanies(
  ctx: WarmContext,
  settings: EdgarSettings,
  now = new Date(),
): Promise<CompaniesCounts> {
  let list = await tickerList(ctx, 0);
  if (!list) {
    await warmTickers(ctx, settings);
    list = await tickerList(ctx, 0);
  }
  const directory = directoryFor(list?.body ?? { source: "", entries: [] });
  const counts: CompaniesCounts = {
    refreshed: 0,
    withFinancials: 0,
    filings: 0,
    failed: [],
    queuedRefreshes: 0,
  };
  const warmed = new Set<string>();
  for (const ticker of settings.tickers) {
    const entry = directory.ticker(ticker);
    if (!entry) {
      counts.failed.push({ ticker, error: "not in SEC's ticker file" });
      continue;
    }
    if (warmed.has(entry.cik)) continue;
    warmed.add(entry.cik);
    try {
      const outcome = await refreshCompany(ctx, settings, entry.cik);
      if (outcome.missing) throw new Error(`SEC has no submissions for CIK ${entry.cik}`);
      counts.refreshed++;
      counts.filings += outcome.filings ?? 0;
      if (outcome.hasFacts) counts.withFinancials++;
    } catch (error) {
      counts.failed.push({ ticker, error: errorText(error) });
    }
  }
  for (const record of await companyRecords(ctx)) {
    if (warmed.has(record.cik) || now.getTime() - Date.parse(record.fetchedAt) < STALE_AFTER_MS) continue;
    if (await ctx.store.jobs.enqueue(COMPANY_QUEUE, record.cik, { cik: record.cik }, { lane: "warm" }))
      counts.queuedRefreshes++;
  }
  if (counts.refreshed === 0 && counts.failed.length > 0) {
    const first = counts.failed[0];
    throw new Error(
      `no configured company could be refreshed (${counts.failed.length} failed; ${first?.ticker}: ${first?.error})`,
    );
  }
  return counts;
}

export function edgarWarmers(settings: EdgarSettings): Warmer[] {
  return [
    { name: TICKERS_WARMER, everyMs: DAILY_MS, run: (ctx) => warmTickers(ctx, settings) },
    { name: COMPANIES_WARMER, everyMs: DAILY_MS, run: (ctx) => warmCompanies(ctx, settings) },
  ];
}
