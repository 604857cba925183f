// GET /v1/edgar/filing: one filing by accession number, from the cached companies' latest 1000 filings.
import { z } from "zod";
import {
  type ErrorOutcome,
  type HandlerContext,
  notCached,
  notFound,
  ok,
  product,
} from "../../catalog/product.ts";
import { type AcceptanceTime, acceptanceTime } from "./acceptance.ts";
import {
  CikParam,
  checkOneCompany,
  checkTicker,
  companyMiss,
  resolveCik,
  TickerParam,
} from "./company-params.ts";
import {
  absentKey,
  type CompanyRecord,
  companyRecord,
  EDGAR_FAMILY,
  type FoundFiling,
  findFilings,
  tickerList,
} from "./edgar-store.ts";
import { describeItems } from "./form8k-items.ts";
import { accessionFilerCik, accessionYear, filingUrls, normaliseAccession } from "./identifiers.ts";
import { enqueueFilingProbe } from "./jobs.ts";
import type { EdgarSettings } from "./settings.ts";
import { FILINGS_COVERED } from "./submissions.ts";
import { directoryFor } from "./tickers.ts";
import { EDGAR_SOURCE, SEC_ATTRIBUTION, unlessSecBlocked } from "./upstream.ts";
import { TICKERS_WARMER } from "./warmers.ts";

export const FILING_RETRY_AFTER_SEC = 60;
/** A company's submissions fetched this recently are not fetched again for a missing accession. */
const RECHECK_AFTER_MS = 15 * 60_000;
const ABSENT_MARK_MS = 24 * 3600_000;

const AccessionParam = z
  .string({ error: "accession is required: an accession number such as 0000320193-24-000123" })
  .describe("Accession number, with or without dashes: 0000320193-24-000123 or 000032019324000123")
  .transform((raw, ctx) => {
    const accession = normaliseAccession(raw);
    if (!accession) {
      ctx.addIssue({
        code: "custom",
        message: `accession must be 18 digits, as 0000320193-24-000123 or 000032019324000123, got ${JSON.stringify(raw.trim().slice(0, 30))}`,
      });
      return z.NEVER;
    }
    return accession;
  });

export const FilingQuery = z
  .object({ accession: AccessionParam, ticker: TickerParam.optional(), cik: CikParam.optional() })
  .superRefine((value, ctx) => checkOneCompany(value, ctx, false));

const Nullable = z.string().nullable();

export const FilingAnswer = z.object({
  accession: z.string(),
  cik: z.string().regex(/^\d{10}$/),
  company: z.object({
    name: z.string(),
    tickers: z.array(z.string()),
    exchanges: z.array(z.string()),
    sic: Nullable,
    sicDescription: Nullable,
  }),
  form: z.string(),
  filingDate: z.iso.date(),
  reportDate: Nullable,
  acceptanceDateTime: Nullable.describe(
    "When EDGAR accepted the filing, in UTC: the <ACCEPTANCE-DATETIME> of the filing's own header (US Eastern " +
      "time) converted with the daylight-saving rules of its date; null when SEC serves no header for the filing",
  ),
  acceptanceDateTimeEastern: Nullable.describe(
    "The same instant as the header states it, US Eastern time with its offset (2022-05-06T18:30:57-04:00)",
  ),
  acceptanceDateTimePublished: Nullable.describe(
    "acceptanceDateTime as published by SEC in the submissions file: it ends in Z but is often US Eastern " +
      "wall-clock time, and not consistently; kept for reference, not to be read as UTC",
  ),
  act: Nullable.describe("Securities Act the filing was made under: 33, 34, 40…"),
  fileNumber: Nullable,
  filmNumber: Nullable,
  items: z
    .array(z.object({ item: z.string(), description: Nullable }))
    .describe("Items of a current report (8-K) with what each reports"),
  size: z.number().int().nonnegative(),
  isXBRL: z.boolean(),
  isInlineXBRL: z.boolean(),
  primaryDocument: Nullable,
  primaryDocDescription: Nullable,
  urls: z.object({
    indexUrl: z.url(),
    filingUrl: z.url(),
    documentsUrl: z.url(),
    secViewerUrl: z.url().nullable(),
  }),
  related: z.object({
    company: z.string().describe("The company's profile on this service"),
    financials: z.string().describe("The company's financial statements on this service"),
  }),
  source: z.url().describe("The SEC submissions file the filing was read from"),
  acceptanceSource: z.url().describe("The filing header the acceptance time was read from"),
  fetchedAt: z.iso.datetime(),
  notice: z.string(),
});

type FilingAnswerBody = z.infer<typeof FilingAnswer>;

function sourceOf(found: FoundFiling): string {
  const base = found.company.submissionsUrl;
  return found.row.page ? base.replace(/[^/]+$/, found.row.page) : base;
}

function filingAnswer(found: FoundFiling, accepted: AcceptanceTime): FilingAnswerBody {
  const { row, cik, company } = found;
  return {
    accession: row.accession,
    cik,
    company: company.brief,
    form: row.form,
    filingDate: row.filingDate,
    reportDate: row.reportDate,
    acceptanceDateTime: accepted.utc,
    acceptanceDateTimeEastern: accepted.eastern,
    acceptanceDateTimePublished: row.acceptanceDateTime,
    act: row.act,
    fileNumber: row.fileNumber,
    filmNumber: row.filmNumber,
    items: describeItems(row.items),
    size: row.size,
    isXBRL: row.isXBRL,
    isInlineXBRL: row.isInlineXBRL,
    primaryDocument: row.primaryDocument,
    primaryDocDescription: row.primaryDocDescription,
    urls: filingUrls(cik, row.accession, row.primaryDocument, row),
    related: { company: `/v1/edgar/company?cik=${cik}`, financials: `/v1/edgar/financials?cik=${cik}` },
    source: sourceOf(found),
    acceptanceSource: accepted.headerUrl,
    fetchedAt: company.fetchedAt,
    notice: `${SEC_ATTRIBUTION}. EDGAR filings are public records; the filing's own documents are at urls.filingUrl.`,
  };
}

/** Picks the row of the named company, else the company that submitted it, else the first. */
function choose(found: FoundFiling[], cik: string | undefined, accession: string): FoundFiling | undefined {
  if (cik) return found.find((f) => f.cik === cik);
  return found.find((f) => f.cik === accessionFilerCik(accession)) ?? found[0];
}

/** An accession not in a cached company's filings: out of coverage, absent, or newer than the cache. */
async function missInCachedCompany(
  ctx: HandlerContext,
  company: CompanyRecord,
  accession: string,
): Promise<ErrorOutcome> {
  // Accession numbers carry the year they were assigned: one from before the newest cached filing's year would
  // already be cached if it were this company's, so only the current year's can be newer than the cache.
  const year = accessionYear(accession);
  const cannotBeNewer = company.newestFiling !== null && year < Number(company.newestFiling.slice(0, 4));
  const absent = await ctx.store.cache.get(EDGAR_FAMILY, absentKey(company.cik, accession));
  const recentlyAbsent = absent && Date.now() - Date.parse(absent.fetchedAt) < ABSENT_MARK_MS;
  const recentlyFetched = Date.now() - Date.parse(company.fetchedAt) < RECHECK_AFTER_MS;
  if (cannotBeNewer || recentlyAbsent || recentlyFetched) {
    return notFound(
      `Accession ${accession} is not among the latest ${FILINGS_COVERED} filings of ${company.name} (CIK ${company.cik}) ` +
        `as fetched from SEC at ${company.fetchedAt}.`,
      { cik: company.cik },
    );
  }
  await enqueueFilingProbe(ctx, company.cik, accession);
  return unlessSecBlocked(
    ctx,
    notCached(
      `Accession ${accession} is not in the cached filings of ${company.name} (CIK ${company.cik}); SEC is being asked ` +
        `whether it is newer. Try again in about ${FILING_RETRY_AFTER_SEC} seconds.`,
      FILING_RETRY_AFTER_SEC,
      { cik: company.cik },
    ),
  );
}

/** `settings.userAgent` is declared to SEC when a filing's header is fetched for its acceptance time. */
export function edgarFiling(settings: Pick<EdgarSettings, "userAgent">) {
  return product({
    sku: "edgar.filing",
    method: "GET",
    path: "/v1/edgar/filing",
    summary: "One SEC EDGAR filing by accession number: form, dates, 8-K items, XBRL flags, SEC links",
    description:
      "One filing by accession number (with or without dashes), from the latest 1000 filings of each cached company: " +
      "form, filing and report dates, acceptance time in UTC (read from the filing's own header, which states US " +
      "Eastern time; SEC's submissions file labels Eastern times as UTC), act, file and film numbers, 8-K items with their descriptions, " +
      "size, XBRL flags, primary document, SEC links, and links to the company's profile and financials here. Filings " +
      "submitted by a filing agent are found when their company is cached; otherwise pass ticker or cik. A miss is 404, " +
      "not charged.",
    status: "live",
    tags: ["edgar", "sec", "filings"],
    price: "0.005",
    query: FilingQuery,
    answer: FilingAnswer,
    sample: { accession: "0000320193-24-000123" },
    source: EDGAR_SOURCE,

    check: ({ query }, ctx) => checkTicker(ctx, query.ticker),

    async handle({ query }, ctx) {
      let cik: string | undefined;
      if (query.cik || query.ticker) {
        const resolved = await resolveCik(ctx, query);
        if ("outcome" in resolved) return resolved.outcome;
        cik = resolved.cik;
      }
      const found = choose(await findFilings(ctx, query.accession), cik, query.accession);
      if (found) {
        const accepted = await acceptanceTime(ctx, settings.userAgent, found.cik, found.row.accession);
        return "status" in accepted ? accepted : ok(filingAnswer(found, accepted));
      }

      const target = cik ?? accessionFilerCik(query.accession);
      const company = await companyRecord(ctx, target);
      if (company) return missInCachedCompany(ctx, company, query.accession);
      if (cik) return companyMiss(ctx, cik, "filings");
      // Without ticker or cik the accession's prefix names whoever submitted it: a listed company is fetched,
      // anyone else is most likely a filing agent.
      const list = await tickerList(ctx);
      if (!list) {
        await ctx.store.jobs.enqueue("warmer", TICKERS_WARMER, { warmer: TICKERS_WARMER });
        return unlessSecBlocked(
          ctx,
          notCached(
            `Accession ${query.accession} is not cached and SEC's ticker list is not loaded yet to tell whose it is; ` +
              `try again in about ${FILING_RETRY_AFTER_SEC} seconds, or pass ticker or cik.`,
            FILING_RETRY_AFTER_SEC,
          ),
        );
      }
      if (directoryFor(list.body).tickersOf(target).length > 0) return companyMiss(ctx, target, "filings");
      return notFound(
        `Accession ${query.accession} is not among the cached companies' latest ${FILINGS_COVERED} filings. Its prefix ` +
          `${target} is not a listed company's CIK, so it was probably submitted by a filing agent: pass the company's ticker or cik.`,
      );
    },
  });
}
