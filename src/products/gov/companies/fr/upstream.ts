// France: API Recherche d'entreprises (DINUM, the API behind annuaire-entreprises.data.gouv.fr).
//
// Sources: the API's OpenAPI (github.com/annuaire-entreprises-data-gouv-fr/search-api,
// aio/aio-proxy/aio_proxy/doc/open-api.yml, also served at https://recherche-entreprises.api.gouv.fr/docs/):
// GET /search with q, page, per_page (at most 25); answer {results[], total_results, page, per_page,
// total_pages}; each result a legal unit (siren, nom_complet, nom_raison_sociale, nature_juridique as the
// 4-digit INSEE catégorie juridique, etat_administratif A|C, date_creation, date_fermeture, siege{siret,
// adresse, …}); 400 {"erreur": …}. `total_results` stops at 10,000 (the search index counts no further): a
// total of 10,000 is served as a lower bound (totalCountIsLowerBound). There is no by-SIREN endpoint: a SIREN
// is asked as q. No key. Limit: 7 requests a second per client, then 429 (stated in the OpenAPI description):
// we space requests 150 ms apart across the cluster. Data: Sirene (INSEE) and RNE (INPI), under the Licence
// Ouverte / Open Licence 2.0 (Etalab). Company facts only: `dirigeants` is never read.
import { UpstreamError, type UpstreamSpec } from "../../../../upstream/client.ts";
import type { CompanySearch } from "../answers.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import { type FrCompany, type FrResult, isLegalEntity, normaliseFrResult } from "./normalise.ts";

export const FR_UPSTREAM: UpstreamSpec = {
  name: "gov-fr-recherche-entreprises",
  defaultBaseUrl: "https://recherche-entreprises.api.gouv.fr",
  minIntervalMs: 150,
  maxConcurrent: 2,
  timeoutMs: 7000,
  retries: 1,
};

/** Results asked per search: the API's maximum page, so that sole traders dropped still leave ten. */
const FR_PAGE_SIZE = 25;
/** Matches served per search (buyers are told: up to 10). */
export const FR_MAX_MATCHES = 10;
/**
 * The API counts matches up to this many and no further (its search index stops counting at 10,000 hits):
 * a `total_results` of 10,000 means "at least 10,000".
 */
const FR_COUNT_CAP = 10_000;

interface FrPage {
  results?: FrResult[];
  total_results?: number;
  erreur?: string;
}

async function searchPage(ctx: Ctx, q: string, perPage: number) {
  const client = ctx.upstreams.client(FR_UPSTREAM);
  const response = await client.get({ path: "/search", query: { q, page: 1, per_page: perPage } });
  let page: FrPage;
  try {
    page = JSON.parse(response.body) as FrPage;
  } catch {
    throw new UpstreamError(
      FR_UPSTREAM.name,
      `not JSON from ${response.url} (HTTP ${response.status})`,
      response.status,
    );
  }
  if (response.status !== 200 || !Array.isArray(page.results)) {
    const reason = page.erreur ?? `HTTP ${response.status}`;
    throw new UpstreamError(FR_UPSTREAM.name, `search failed: ${reason}`, response.status);
  }
  return { page, url: response.url, recordedSample: response.recordedSample };
}

export async function searchFrCompanies(
  ctx: Ctx,
  q: string,
): Promise<{ search: CompanySearch<FrCompany>; recordedSample: boolean }> {
  const { page, url, recordedSample } = await searchPage(ctx, q, FR_PAGE_SIZE);
  const items = (page.results ?? []).filter(isLegalEntity).slice(0, FR_MAX_MATCHES).map(normaliseFrResult);
  const totalCount = page.total_results ?? null;
  return {
    search: {
      totalCount,
      ...(totalCount !== null && totalCount >= FR_COUNT_CAP ? { totalCountIsLowerBound: true } : {}),
      items,
      source: url,
    },
    recordedSample,
  };
}

export async function lookupFrCompany(
  ctx: Ctx,
  siren: string,
): Promise<CompanyLookup<FrCompany & { apiUrl: string }>> {
  const { page, url, recordedSample } = await searchPage(ctx, siren, 1);
  const result = (page.results ?? []).find((r) => r.siren === siren);
  // Sole traders are persons, not legal entities: this route does not serve them.
  if (!result || !isLegalEntity(result)) return { found: false };
  return { found: true, company: { ...normaliseFrResult(result), apiUrl: url }, recordedSample };
}
