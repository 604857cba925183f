// GET /v1/edgar/company: one company's profile (identity, addresses, filing counts, recent and key filings,
// financial highlights) from the cache; an unknown company is queued.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import {
  CikParam,
  checkOneCompany,
  checkTicker,
  companyMiss,
  resolveCik,
  TickerParam,
} from "./company-params.ts";
import { companyKey, EDGAR_FAMILY } from "./edgar-store.ts";
import type { CompanyProfile } from "./profile.ts";
import { filerCategories } from "./submissions.ts";
import { EDGAR_SOURCE } from "./upstream.ts";

export const CompanyQuery = z
  .object({ ticker: TickerParam.optional(), cik: CikParam.optional() })
  .superRefine((value, ctx) => checkOneCompany(value, ctx, true));

const Nullable = z.string().nullable();

const AddressSchema = z.object({
  street1: Nullable,
  street2: Nullable,
  city: Nullable,
  stateOrCountry: Nullable,
  zipCode: Nullable,
  stateOrCountryDescription: Nullable,
  isForeignLocation: z.boolean().nullable(),
  foreignStateTerritory: Nullable,
  country: Nullable,
  countryCode: Nullable,
});

const FilingSummarySchema = z.object({
  accession: z.string().describe("Accession number, 0000320193-24-000123"),
  form: z.string(),
  filed: z.iso.date(),
  reportDate: Nullable.describe("Period of report, where the filing has one"),
  primaryDocument: Nullable,
  description: Nullable.describe("SEC's description of the primary document"),
  size: z.number().int().nonnegative().describe("Size of the whole submission in bytes"),
  indexUrl: z.url(),
  filingUrl: z.url().describe("The primary document"),
  documentsUrl: z.url().describe("The filing's folder of documents"),
  secViewerUrl: z.url().nullable().describe("SEC's XBRL viewer, for XBRL filings"),
});

const HighlightSchema = z.object({
  tag: z.string().describe("XBRL tag the value was reported under"),
  taxonomy: z.string(),
  label: z.string(),
  unit: z.string(),
  value: z.number().int(),
  period: z.object({
    calendar: z.string().describe("Calendar period, e.g. CY2024"),
    start: Nullable,
    end: z.iso.date(),
    instant: z.boolean(),
  }),
  end: z.iso.date(),
  filed: z.string().describe("Filing date of the periodic report that first reported the value"),
  form: z
    .string()
    .describe("The periodic report (10-K, 10-Q, 20-F, 40-F or amendment) that first reported the value"),
  fy: z.number().int().nullable().describe("Fiscal year of that report"),
  fp: Nullable.describe("Fiscal period of that report (FY, Q1…)"),
});

export const CompanyAnswer = z.object({
  cik: z.string().regex(/^\d{10}$/),
  name: z.string(),
  tickers: z.array(z.string()),
  exchanges: z.array(z.string()),
  sic: Nullable,
  sicDescription: Nullable,
  fiscalYearEnd: Nullable.describe("MMDD"),
  stateOfIncorporation: Nullable,
  phone: Nullable,
  website: Nullable,
  investorWebsite: Nullable,
  category: z
    .array(z.string())
    .describe(
      'Filer categories as SEC lists them, e.g. ["Large accelerated filer"] or ["Non-accelerated filer", "Smaller reporting company"]; empty when SEC gives none',
    ),
  addresses: z.object({ mailing: AddressSchema, business: AddressSchema }),
  filingCountsByForm: z
    .record(z.string(), z.number().int())
    .describe("Counts over the cached latest filings (up to 1000)"),
  filings: z.array(FilingSummarySchema).describe("Up to 100 most recent filings, newest first"),
  keyFilings: z
    .array(FilingSummarySchema.extend({ category: z.string() }))
    .describe(
      "The latest annual, quarterly and current report, proxy statement, ownership and registration filings",
    ),
  financialHighlights: z
    .array(HighlightSchema)
    .describe("Latest annual values of key line items from XBRL company facts"),
  factsError: Nullable.describe(
    "Why there are no financial highlights, when SEC has no XBRL facts for the company",
  ),
  fetchedAt: z.iso.datetime(),
  sources: z.object({ submissions: z.url(), companyfacts: z.url() }),
});

type CompanyAnswerBody = z.infer<typeof CompanyAnswer>;

function companyAnswer(profile: CompanyProfile, fetchedAt: string): CompanyAnswerBody {
  return {
    cik: profile.cik,
    name: profile.name,
    tickers: profile.tickers,
    exchanges: profile.exchanges,
    sic: profile.sic,
    sicDescription: profile.sicDescription,
    fiscalYearEnd: profile.fiscalYearEnd,
    stateOfIncorporation: profile.stateOfIncorporation,
    phone: profile.phone,
    website: profile.website,
    investorWebsite: profile.investorWebsite,
    category: filerCategories(profile.category),
    addresses: profile.addresses,
    filingCountsByForm: profile.filingCountsByForm,
    filings: profile.filings,
    keyFilings: profile.keyFilings,
    financialHighlights: profile.financialHighlights,
    factsError: profile.factsError,
    fetchedAt,
    sources: profile.sources,
  };
}

export const edgarCompany = product({
  sku: "edgar.company",
  method: "GET",
  path: "/v1/edgar/company",
  summary: "SEC EDGAR company profile: identity, addresses, recent and key filings, financial highlights",
  description:
    "One US-listed or SEC-registered company by ticker or cik (give one): identity (CIK, name, tickers, exchanges, " +
    "SIC, fiscal year end, state of incorporation, phone, websites, filer category), mailing and business addresses, " +
    "filing counts by form, up to 100 recent filings and the latest key filings with SEC links, and financial " +
    "highlights from XBRL company facts. Refreshed daily; a company not yet cached is queued and answers 404 " +
    "(not charged) with retryAfterSec.",
  status: "live",
  tags: ["edgar", "sec", "filings", "companies"],
  price: "0.005",
  query: CompanyQuery,
  answer: CompanyAnswer,
  sample: { ticker: "AAPL" },
  source: EDGAR_SOURCE,

  check: ({ query }, ctx) => checkTicker(ctx, query.ticker),

  async handle({ query }, ctx) {
    const resolved = await resolveCik(ctx, query);
    if ("outcome" in resolved) return resolved.outcome;
    const doc = await ctx.store.cache.get<CompanyProfile>(EDGAR_FAMILY, companyKey(resolved.cik));
    if (!doc) return companyMiss(ctx, resolved.cik, "company profile");
    return ok(companyAnswer(doc.body, doc.fetchedAt));
  },
});
