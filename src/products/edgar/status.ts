// GET /v1/edgar/status (free): the EDGAR warmers, what is cached, the fetch queues and SEC fair-access settings.
import { z } from "zod";
import { ok, product, type Warmer } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { edgarCounts, tickerList } from "./edgar-store.ts";
import { COMPANY_QUEUE, FILING_QUEUE } from "./jobs.ts";
import type { EdgarSettings } from "./settings.ts";
import { latestDirectory } from "./tickers.ts";
import { EDGAR_SOURCE, SEC_DATA_UPSTREAM, SEC_REQUESTS_PER_SECOND, SEC_WWW_UPSTREAM } from "./upstream.ts";

/** The cache counts as fresh while both warmers succeeded within this long (daily runs, with slack). */
const FRESH_WITHIN_MS = 2 * 24 * 3600_000;

const Timestamp = z.iso.datetime().nullable();

const QueueCounts = z.object({
  queued: z.number().int(),
  running: z.number().int(),
  done: z.number().int(),
  dead: z.number().int(),
});

export const EdgarStatusAnswer = z.object({
  ok: z.literal(true),
  warmers: z.array(WarmerStatusAnswer),
  tickers: z.object({
    count: z.number().int().nonnegative().describe("Tickers in SEC's ticker file as cached"),
    fetchedAt: Timestamp,
    recordedSample: z.boolean(),
    index: z
      .object({
        loaded: z.boolean().describe("False until a request on this node needed the directory"),
        tickers: z.number().int().nonnegative(),
        companies: z.number().int().nonnegative(),
        approximateBytes: z.number().int().nonnegative().describe("Estimated memory on this node"),
        builtAt: Timestamp,
        buildMs: z.number().int().nonnegative().nullable(),
      })
      .describe("This node's in-memory directory of the ticker list (ticker, CIK and name search)"),
  }),
  companies: z.object({
    configured: z.array(z.string()).describe("Tickers kept warm (EDGAR_TICKERS)"),
    cached: z.number().int().nonnegative().describe("Companies cached, configured and fetched on request"),
    withFinancials: z.number().int().nonnegative(),
    filingsIndexed: z.number().int().nonnegative().describe("Filings findable by accession"),
  }),
  queues: z.object({ company: QueueCounts, filing: QueueCounts }),
  fairAccess: z.object({
    maxRequestsPerSecond: z
      .number()
      .describe("This service's budget for all SEC hosts together (SEC allows 10)"),
    userAgentDeclared: z.boolean(),
  }),
  upstreams: z.object({ data: z.url(), www: z.url() }),
  fresh: z.boolean().describe("Both warmers succeeded within the last two days"),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export function edgarStatus(settings: EdgarSettings, warmers: Warmer[]) {
  return product({
    sku: "edgar.status",
    method: "GET",
    path: "/v1/edgar/status",
    summary: "Status of the SEC EDGAR cache (free)",
    description:
      "Free. The EDGAR warmers' last runs, successes and errors with their counts; the cached ticker list, companies, " +
      "financials and filings; the fetch-on-miss queues; SEC fair-access settings; the upstreams in use.",
    status: "live",
    tags: ["edgar", "sec", "status"],
    price: "0",
    answer: EdgarStatusAnswer,
    source: EDGAR_SOURCE,

    async handle(_input, ctx) {
      const now = new Date();
      const [statuses, list, counts, company, filing] = await Promise.all([
        Promise.all(warmers.map((w) => warmerStatus(ctx, w))),
        tickerList(ctx, 0),
        edgarCounts(ctx),
        ctx.store.jobs.counts(COMPANY_QUEUE),
        ctx.store.jobs.counts(FILING_QUEUE),
      ]);
      const built = latestDirectory();
      const fresh = statuses.every(
        (s) => s.lastSuccessAt !== null && now.getTime() - Date.parse(s.lastSuccessAt) <= FRESH_WITHIN_MS,
      );
      return ok({
        ok: true as const,
        warmers: statuses,
        tickers: {
          count: list?.body.entries.length ?? 0,
          fetchedAt: list?.fetchedAt ?? null,
          recordedSample: list?.recordedSample ?? false,
          index: {
            loaded: built !== undefined,
            tickers: built?.directory.size ?? 0,
            companies: built?.directory.companyCount ?? 0,
            approximateBytes: built?.directory.approximateBytes() ?? 0,
            builtAt: built?.builtAt ?? null,
            buildMs: built?.buildMs ?? null,
          },
        },
        companies: {
          configured: settings.tickers,
          cached: counts.companies,
          withFinancials: counts.withFacts,
          filingsIndexed: counts.filings,
        },
        queues: { company, filing },
        fairAccess: {
          maxRequestsPerSecond: SEC_REQUESTS_PER_SECOND,
          userAgentDeclared: settings.userAgent.length > 0,
        },
        upstreams: {
          data: ctx.upstreams.client(SEC_DATA_UPSTREAM).baseUrl,
          www: ctx.upstreams.client(SEC_WWW_UPSTREAM).baseUrl,
        },
        fresh,
        mode: ctx.upstreams.mode,
        generatedAt: now.toISOString(),
      });
    },
  });
}
