// Fetches one company from SEC (submissions with enough extra pages for its latest 1000 filings, then the
// XBRL company facts), derives its financials and stores everything the endpoints read.
import type { HandlerContext } from "../../catalog/product.ts";
import { type CompanyFactsDocument, deriveFinancials, type FinancialHighlight } from "./derive-financials.ts";
import { companyKey, EDGAR_FAMILY, missingKey, type StoredFinancials, saveCompany } from "./edgar-store.ts";
import { buildProfile, type CompanyProfile } from "./profile.ts";
import type { EdgarSettings } from "./settings.ts";
import {
  FILINGS_COVERED,
  filingRows,
  latestFilings,
  normaliseIdentity,
  submissionsPages,
} from "./submissions.ts";
import {
  companyFactsPath,
  fetchSecJson,
  SEC_DATA_UPSTREAM,
  submissionsPagePath,
  submissionsPath,
} from "./upstream.ts";

interface RefreshOutcome {
  cik: string;
  /** SEC has no submissions for this CIK. */
  missing: boolean;
  name?: string;
  filings?: number;
  pages?: number;
  hasFacts?: boolean;
}

type RefreshContext = Pick<HandlerContext, "upstreams" | "store">;

/**
 * `withFinancials: false` refreshes the submissions only (a filing newer than the cache was asked for) and
 * keeps the stored financials and highlights.
 */
export async function refreshCompany(
  ctx: RefreshContext,
  settings: EdgarSettings,
  cik: string,
  { withFinancials = true }: { withFinancials?: boolean } = {},
): Promise<RefreshOutcome> {
  const submissions = await fetchSecJson<Record<string, unknown>>(
    ctx,
    SEC_DATA_UPSTREAM,
    submissionsPath(cik),
    settings.userAgent,
    true,
  );
  const fetchedAt = new Date().toISOString();
  if (!submissions) {
    await ctx.store.cache.put(EDGAR_FAMILY, missingKey(cik), { body: { cik }, fetchedAt });
    return { cik, missing: true };
  }
  const identity = normaliseIdentity(submissions.body);
  if (identity.cik !== cik) throw new Error(`SEC answered CIK ${identity.cik} for CIK ${cik}`);

  const rows = filingRows((submissions.body.filings as { recent?: unknown } | undefined)?.recent, null);
  let pages = 0;
  for (const page of submissionsPages(submissions.body)) {
    if (rows.length >= FILINGS_COVERED) break;
    const extra = await fetchSecJson<unknown>(
      ctx,
      SEC_DATA_UPSTREAM,
      submissionsPagePath(page.name),
      settings.userAgent,
    );
    rows.push(...filingRows(extra?.body, page.name));
    pages++;
  }
  const latest = latestFilings(rows);

  let highlights: FinancialHighlight[] = [];
  let factsError: string | null = null;
  let financials: StoredFinancials | undefined;
  let factsUrl = "";
  let recordedSample = submissions.recordedSample;
  if (withFinancials) {
    const facts = await fetchSecJson<CompanyFactsDocument>(
      ctx,
      SEC_DATA_UPSTREAM,
      companyFactsPath(cik),
      settings.userAgent,
      true,
    );
    factsUrl = ctx.upstreams.client(SEC_DATA_UPSTREAM).url({ path: companyFactsPath(cik) });
    if (facts) {
      factsUrl = facts.url;
      recordedSample ||= facts.recordedSample;
      const { highlights: derivedHighlights, ...derived } = deriveFinancials(facts.body);
      highlights = derivedHighlights;
      financials = {
        ok: true,
        source: facts.url,
        ...derived,
        cik,
        entityName: derived.entityName || identity.name,
      };
    } else {
      factsError = `SEC publishes no XBRL company facts for CIK ${cik} (HTTP 404 from ${factsUrl}); the company may not file financial statements in XBRL.`;
      financials = { ok: false, cik, entityName: identity.name, source: factsUrl, factsError };
    }
  } else {
    const previous = await ctx.store.cache.get<CompanyProfile>(EDGAR_FAMILY, companyKey(cik));
    highlights = previous?.body.financialHighlights ?? [];
    factsError = previous?.body.factsError ?? null;
    factsUrl =
      previous?.body.sources.companyfacts ??
      ctx.upstreams.client(SEC_DATA_UPSTREAM).url({ path: companyFactsPath(cik) });
  }

  const profile = buildProfile(identity, latest, highlights, factsError, {
    submissions: submissions.url,
    companyfacts: factsUrl,
  });
  await saveCompany(ctx, {
    profile,
    rows: latest,
    fetchedAt,
    recordedSample,
    ...(financials ? { financials } : {}),
  });
  return {
    cik,
    missing: false,
    name: identity.name,
    filings: latest.length,
    pages,
    hasFacts: factsError === null,
  };
}
