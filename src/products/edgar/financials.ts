// GET /v1/edgar/financials: compact financial statements (about 40 line items, last 10 years and 12 quarters)
// read from the document derived at warm time; `tags` and `period` only trim it.
import { z } from "zod";
import { notFound, ok, product } from "../../catalog/product.ts";
import {
  CikParam,
  checkOneCompany,
  checkTicker,
  companyMiss,
  resolveCik,
  TickerParam,
} from "./company-params.ts";
import { DEDUPE_RULE, type LineItemSeries, type PeriodEntry } from "./derive-financials.ts";
import { readFinancials, type StoredFinancials } from "./edgar-store.ts";
import { LINE_ITEM_NAMES, lineItemFor } from "./line-items.ts";
import { EDGAR_SOURCE } from "./upstream.ts";

const MAX_TAGS = 60;

const TagsParam = z
  .string()
  .describe(
    `Comma-separated line items to return: ${LINE_ITEM_NAMES.join(", ")}; their XBRL tag names (e.g. Revenues, NetIncomeLoss) are accepted too`,
  )
  .transform((raw, ctx) => {
    const names = raw
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    const unknown = names.filter((name) => !lineItemFor(name));
    if (names.length === 0 || names.length > MAX_TAGS || unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message:
          names.length === 0
            ? "tags must name at least one line item"
            : names.length > MAX_TAGS
              ? `tags names at most ${MAX_TAGS} line items`
              : `tags: unknown line item ${unknown
                  .slice(0, 5)
                  .map((u) => JSON.stringify(u.slice(0, 40)))
                  .join(", ")}; known: ${LINE_ITEM_NAMES.join(", ")}`,
      });
      return z.NEVER;
    }
    return [...new Set(names.map((name) => lineItemFor(name) as string))];
  });

export const FinancialsQuery = z
  .object({
    ticker: TickerParam.optional(),
    cik: CikParam.optional(),
    tags: TagsParam.optional(),
    period: z
      .enum(["annual", "quarterly"], { error: "period must be annual or quarterly" })
      .optional()
      .describe("Only annual or only quarterly values"),
  })
  .superRefine((value, ctx) => checkOneCompany(value, ctx, true));

const EntrySchema = z.object({
  period: z.string().describe("Calendar period: CY2024 or CY2024Q3"),
  start: z.string().nullable().describe("Start of the period; null for balances (instants)"),
  end: z.iso.date(),
  value: z.number(),
  form: z
    .string()
    .describe("The periodic report (10-K, 10-Q, 20-F, 40-F or amendment) that first reported the value"),
  filed: z.string().describe("Its filing date"),
  accn: z.string().describe("Its accession number"),
  tag: z.string().describe("XBRL tag the value was reported under"),
  derived: z.boolean().describe("Computed by subtraction (quarter from year-to-date or annual values)"),
});

const SeriesSchema = z.object({
  taxonomy: z.string(),
  label: z.string(),
  unit: z.string(),
  xbrlTags: z
    .array(z.string())
    .describe("XBRL tags the item was read from for this company, most recently used first"),
  annual: z.array(EntrySchema),
  quarterly: z.array(EntrySchema),
});

export const FinancialsAnswer = z.object({
  cik: z.string().regex(/^\d{10}$/),
  entityName: z.string(),
  fetchedAt: z.iso.datetime(),
  source: z.url().describe("The SEC companyfacts URL the values were derived from"),
  tagCount: z.number().int().nonnegative().describe("Line items in facts"),
  periods: z.object({
    annual: z.number().int().nonnegative().describe("Distinct calendar years in facts"),
    quarterly: z.number().int().nonnegative().describe("Distinct calendar quarters in facts"),
    dedupe: z.string().describe("How one value per calendar period is chosen"),
  }),
  latestPeriodEnd: z
    .record(z.string(), z.iso.date())
    .describe("Each line item's latest period end, in or before the window"),
  availableTags: z.array(z.string()).describe("Line items this company reports"),
  facts: z.record(z.string(), SeriesSchema),
});

type FinancialsAnswerBody = z.infer<typeof FinancialsAnswer>;

type Stored = Extract<StoredFinancials, { ok: true }>;

/** Trims the stored financials to the requested line items and period kind. */
function financialsAnswer(
  stored: Stored,
  fetchedAt: string,
  tags: string[] | undefined,
  period: "annual" | "quarterly" | undefined,
): FinancialsAnswerBody {
  const names = tags ?? Object.keys(stored.facts);
  const facts: Record<string, LineItemSeries> = {};
  const latestPeriodEnd: Record<string, string> = {};
  const years = new Set<string>();
  const quarters = new Set<string>();
  const none: PeriodEntry[] = [];
  for (const name of names) {
    const latest = stored.latestPeriodEnd[name];
    if (latest) latestPeriodEnd[name] = latest;
    const series = stored.facts[name];
    if (!series) continue;
    const annual = period === "quarterly" ? none : series.annual;
    const quarterly = period === "annual" ? none : series.quarterly;
    for (const entry of annual) years.add(entry.period);
    for (const entry of quarterly) quarters.add(entry.period);
    facts[name] = period ? { ...series, annual, quarterly } : series;
  }
  return {
    cik: stored.cik,
    entityName: stored.entityName,
    fetchedAt,
    source: stored.source,
    tagCount: Object.keys(facts).length,
    periods: { annual: years.size, quarterly: quarters.size, dedupe: DEDUPE_RULE },
    latestPeriodEnd,
    availableTags: stored.availableTags,
    facts,
  };
}

export const edgarFinancials = product({
  sku: "edgar.financials",
  method: "GET",
  path: "/v1/edgar/financials",
  summary: "Compact financial statements from SEC XBRL: about 40 line items, last 10 years and 12 quarters",
  description:
    "Standard line items (revenue with its tag fallbacks, cost of revenue, gross profit, operating and net income, " +
    "EPS, shares, cash, debt, assets, liabilities, equity, cash flows, capital expenditure, dividends, R&D, SG&A…) " +
    "for one company by ticker or cik, one value per calendar period (CY2024, CY2024Q3), the last 10 years and 12 " +
    "quarters, oldest first. Missing quarters, fiscal Q4 included, are derived by subtraction for flow items only " +
    "and marked derived. tags limits the line items (comma-separated; XBRL tag names accepted), period limits to " +
    "annual or quarterly values. Derived daily from SEC's companyfacts; a company not yet cached is queued and " +
    "answers 404 (not charged) with retryAfterSec.",
  status: "live",
  tags: ["edgar", "sec", "financials", "xbrl"],
  price: "0.005",
  query: FinancialsQuery,
  answer: FinancialsAnswer,
  sample: { ticker: "AAPL", tags: "revenue,netIncome,epsDiluted", period: "annual" },
  source: EDGAR_SOURCE,

  check: ({ query }, ctx) => checkTicker(ctx, query.ticker),

  async handle({ query }, ctx) {
    const resolved = await resolveCik(ctx, query);
    if ("outcome" in resolved) return resolved.outcome;
    const doc = await readFinancials(ctx, resolved.cik);
    if (!doc) return companyMiss(ctx, resolved.cik, "financial statements");
    if (!doc.body.ok) return notFound(doc.body.factsError, { cik: resolved.cik });
    return ok(financialsAnswer(doc.body, doc.fetchedAt, query.tags, query.period));
  },
});
