// Slovakia: RPO, the register of legal persons, entrepreneurs and public authorities (Statistical Office of
// the Slovak Republic), API v1.
//
// GET /search?identifier=<IČO> (the parameter is `identifier`) or ?fullName=<name> answers {"results":[…],
// "license":"…"} in one unpaginated response; GET /entity/{id}?showHistoricalData=true with the internal id from
// a search row. Shapes confirmed on real material: a response of GET /search?identifier=31322832 recorded in a
// public GitHub file (search rows: id, dbModificationDate, identifiers, fullNames, addresses with a numeric
// regNumber, 0 when none, and a string buildingNumber, establishment, sourceRegister with codelistCode; dates
// YYYY-MM-DD; what has no value left out; `license` a Slovak text granting CC BY 4.0); the entity model of the
// Android client yuraj11/firmy (app/src/main/java/sk/devprog/firmy/data/model/company/CompanyDetail.kt and
// siblings: legalForms, legalStatuses, otherLegalFacts, activities[].economicActivityDescription,
// equities[].value/valuePaid/currency{code,value}, statisticalCodes{statCodesActualization, mainActivity,
// esa2010}, sourceRegister.registrationOffices/Numbers, dates parsed as yyyy-MM-dd). Still unconfirmed: the
// error body ({code, message} is assumed) and the values of legalStatuses. v1 is marked deprecated in favour
// of v2 but still serves: the base URL is one setting (GOV_SK_RPO_BASE_URL). No key, no published limit:
// requests are spaced 500 ms apart and name searches are clamped to 10 rows on our side. Licence: CC BY 4.0,
// stated in every answer's `license` field.
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../../upstream/client.ts";
import type { CompanySearch } from "../answers.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import {
  normaliseRpoEntity,
  normaliseRpoItem,
  type RpoEntity,
  rpoIco,
  type SkCompany,
  type SkItem,
} from "./rpo-normalise.ts";

export const RPO_UPSTREAM: UpstreamSpec = {
  name: "gov-sk-rpo",
  defaultBaseUrl: "https://api.statistics.sk/rpo/v1",
  minIntervalMs: 500,
  maxConcurrent: 2,
  timeoutMs: 7000,
  retries: 1,
};

export const SK_MAX_MATCHES = 10;

function parse<T>(response: UpstreamResponse): T {
  if (response.status !== 200) {
    let reason = `HTTP ${response.status}`;
    try {
      const error = JSON.parse(response.body) as { message?: string };
      if (error.message) reason += ` ${error.message}`;
    } catch {
      // not JSON: the status says enough
    }
    throw new UpstreamError(RPO_UPSTREAM.name, `${reason} from ${response.url}`, response.status);
  }
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(RPO_UPSTREAM.name, `not JSON from ${response.url}`, response.status);
  }
}

export async function searchSkCompanies(
  ctx: Ctx,
  q: string,
): Promise<{ search: CompanySearch<SkItem>; recordedSample: boolean }> {
  const response = await ctx.upstreams.client(RPO_UPSTREAM).get({ path: "/search", query: { fullName: q } });
  const results = parse<{ results?: RpoEntity[] }>(response).results ?? [];
  const items: SkItem[] = [];
  for (const entity of results) {
    const ico = rpoIco(entity);
    if (ico && items.length < SK_MAX_MATCHES) items.push(normaliseRpoItem(entity, ico.padStart(8, "0")));
  }
  return {
    search: { totalCount: results.length, items, source: response.url },
    recordedSample: response.recordedSample,
  };
}

export async function lookupSkCompany(
  ctx: Ctx,
  ico: string,
): Promise<CompanyLookup<SkCompany & { apiUrl: string }>> {
  const client = ctx.upstreams.client(RPO_UPSTREAM);
  const search = await client.get({ path: "/search", query: { identifier: ico } });
  const rows = parse<{ results?: RpoEntity[] }>(search).results ?? [];
  const row = rows.find((r) => rpoIco(r)?.padStart(8, "0") === ico);
  if (!row || typeof row.id !== "number") return { found: false };
  const detail = await client.get({ path: `/entity/${row.id}`, query: { showHistoricalData: "true" } });
  const entity = parse<RpoEntity>(detail);
  return {
    found: true,
    company: { ...normaliseRpoEntity(entity, ico), apiUrl: detail.url },
    recordedSample: detail.recordedSample,
  };
}
