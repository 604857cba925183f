// Fetch-on-miss jobs: a company nobody has asked for yet, and a filing newer than the cached submissions.
import type { HandlerContext, JobHandler } from "../../catalog/product.ts";
import { UpstreamError } from "../../upstream/client.ts";
import { absentKey, EDGAR_FAMILY } from "./edgar-store.ts";
import { normaliseFilingIndex } from "./filing-index.ts";
import { normaliseAccession, normaliseCik } from "./identifiers.ts";
import { refreshCompany } from "./refresh.ts";
import type { EdgarSettings } from "./settings.ts";
import { fetchSecJson, filingIndexPath, SEC_WWW_UPSTREAM } from "./upstream.ts";

/** Key: the 10-digit CIK. Payload: `{ cik }`. */
export const COMPANY_QUEUE = "edgar.company";
/** Key: `<cik>:<accession>`. Payload: `{ cik, accession }`. */
export const FILING_QUEUE = "edgar.filing";

export function enqueueCompany(ctx: Pick<HandlerContext, "store">, cik: string): Promise<boolean> {
  return ctx.store.jobs.enqueue(COMPANY_QUEUE, cik, { cik });
}

export function enqueueFilingProbe(
  ctx: Pick<HandlerContext, "store">,
  cik: string,
  accession: string,
): Promise<boolean> {
  return ctx.store.jobs.enqueue(FILING_QUEUE, `${cik}:${accession}`, { cik, accession });
}

function field(payload: unknown, name: string): string {
  const value = (payload as Record<string, unknown> | null)?.[name];
  return typeof value === "string" ? value : "";
}

/** SEC's page for a User-Agent it does not accept: a 403 that says nothing about the folder. */
const UNDECLARED_TOOL = /undeclared automated tool/i;

/**
 * A filing folder's index, or null when the folder does not exist: SEC answers a missing `/Archives/...`
 * folder with 404, and sometimes with 403 (unless the 403 is SEC refusing this service's User-Agent).
 */
async function fetchFolderIndex(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: EdgarSettings,
  cik: string,
  accession: string,
) {
  try {
    return await fetchSecJson<unknown>(
      ctx,
      SEC_WWW_UPSTREAM,
      filingIndexPath(cik, accession),
      settings.userAgent,
      true,
    );
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 403 && !UNDECLARED_TOOL.test(error.message)) {
      return null;
    }
    throw error;
  }
}

/**
 * A filing the cache does not have: its folder's index (a small request) tells whether it exists under that
 * company; if it does, the company's submissions are refetched, otherwise the miss is remembered for a day.
 */
async function probeFiling(
  ctx: Pick<HandlerContext, "upstreams" | "store">,
  settings: EdgarSettings,
  cik: string,
  accession: string,
): Promise<"refreshed" | "absent"> {
  const index = await fetchFolderIndex(ctx, settings, cik, accession);
  if (!index || normaliseFilingIndex(index.body).documents.length === 0) {
    await ctx.store.cache.put(EDGAR_FAMILY, absentKey(cik, accession), {
      body: { cik, accession },
      fetchedAt: new Date().toISOString(),
    });
    return "absent";
  }
  await refreshCompany(ctx, settings, cik, { withFinancials: false });
  return "refreshed";
}

export function edgarJobs(settings: EdgarSettings): Record<string, JobHandler> {
  return {
    [COMPANY_QUEUE]: async (payload, ctx) => {
      const cik = normaliseCik(field(payload, "cik"));
      if (!cik) throw new Error(`${COMPANY_QUEUE}: payload has no CIK`);
      await refreshCompany(ctx, settings, cik);
    },
    [FILING_QUEUE]: async (payload, ctx) => {
      const cik = normaliseCik(field(payload, "cik"));
      const accession = normaliseAccession(field(payload, "accession"));
      if (!cik || !accession) throw new Error(`${FILING_QUEUE}: payload needs a CIK and an accession`);
      await probeFiling(ctx, settings, cik, accession);
    },
  };
}
