// United Kingdom: the Companies House Public Data API.
//
// Sources: Companies House developer documentation (developer.company-information.service.gov.uk: company
// profile GET /company/{company_number}, search GET /search/companies?q&items_per_page&start_index, key sent
// as the HTTP Basic user name with an empty password, 401 without it); the profile shape ( absent keys omitted, never null; date_of_cessation only
// on dissolved companies); public clients' fixtures (search answer {items[{company_number, title,
// company_status, company_type, date_of_creation, address{premises, address_line_1, locality, postal_code,
// country}, address_snippet, links}], total_results, items_per_page, start_index, kind "search#companies"};
// an unknown number answers 404 {"errors":[{"error":"company-profile-not-found","type":"ch:service"}]}).
// Limit: 600 requests per rolling 5 minutes per key, then 429 (keys that keep exceeding it are banned): one
// key is shared by every node, so requests are spaced 500 ms apart through the store's upstream budget
// "companies-house" (at most 600 in any 5 minutes, cluster-wide). Terms: Companies House data is Crown
// copyright, reusable under the Open Government Licence v3.0; the API has its developer terms of use.
// Officers and PSC resources are personal data (UK GDPR) and are never fetched.
import { envString } from "../../../../config.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../../upstream/client.ts";
import type { CompanySearch } from "../answers.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import {
  type ChProfile,
  type ChSearchItem,
  type GbCompany,
  type GbItem,
  normaliseChItem,
  normaliseChProfile,
} from "./normalise.ts";

export const CH_KEY_SETTING = "COMPANIES_HOUSE_API_KEY";
export const CH_BUDGET = "companies-house";
export const CH_MIN_INTERVAL_MS = 500;
export const CH_REQUESTS_PER_WINDOW = 600;
export const CH_WINDOW_SEC = 300;

export const GB_UPSTREAM: UpstreamSpec = {
  name: "gov-gb-companies-house",
  defaultBaseUrl: "https://api.company-information.service.gov.uk",
  minIntervalMs: CH_MIN_INTERVAL_MS,
  budget: CH_BUDGET,
  maxConcurrent: 2,
  timeoutMs: 7000,
  retries: 1,
  // A 429 names the end of the 5-minute window; waiting longer than this fails the call instead.
  maxRetryAfterMs: 5000,
};

const GB_PAGE_SIZE = 20;

/** Read once, when the family is built. */
export function companiesHouseKey(env: Record<string, string | undefined>): string | undefined {
  return envString(env, CH_KEY_SETTING);
}

function authorisation(ctx: Ctx, key: string | undefined): Record<string, string> {
  if (!key) {
    if (ctx.upstreams.mode === "replay") return {};
    throw new UpstreamError(GB_UPSTREAM.name, `${CH_KEY_SETTING} is not set`, undefined, true);
  }
  return { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` };
}

function parse<T>(response: UpstreamResponse): T {
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(
      GB_UPSTREAM.name,
      `not JSON from ${response.url} (HTTP ${response.status})`,
      response.status,
    );
  }
}

function failed(response: UpstreamResponse, what: string): UpstreamError {
  const hint = response.status === 401 ? ` (check ${CH_KEY_SETTING})` : "";
  return new UpstreamError(GB_UPSTREAM.name, `${what}: HTTP ${response.status}${hint}`, response.status);
}

/** The API's own "no such company" (a bare 404 from a proxy is an error, not an answer). */
function isProfileNotFound(response: UpstreamResponse): boolean {
  if (response.status !== 404) return false;
  try {
    const errors = (JSON.parse(response.body) as { errors?: Array<{ error?: string }> }).errors ?? [];
    return errors.some((e) => e.error === "company-profile-not-found");
  } catch {
    return false;
  }
}

export async function searchGbCompanies(
  ctx: Ctx,
  key: string | undefined,
  q: string,
): Promise<{ search: CompanySearch<GbItem>; recordedSample: boolean }> {
  const client = ctx.upstreams.client(GB_UPSTREAM);
  const response = await client.get({
    path: "/search/companies",
    query: { q, items_per_page: GB_PAGE_SIZE, start_index: 0 },
    headers: authorisation(ctx, key),
  });
  if (response.status !== 200) throw failed(response, "search failed");
  const page = parse<{ items?: ChSearchItem[]; total_results?: number }>(response);
  const items = (page.items ?? []).filter((i) => typeof i.company_number === "string").map(normaliseChItem);
  return {
    search: { totalCount: page.total_results ?? null, items, source: response.url },
    recordedSample: response.recordedSample,
  };
}

export async function lookupGbCompany(
  ctx: Ctx,
  key: string | undefined,
  number: string,
): Promise<CompanyLookup<GbCompany & { apiUrl: string }>> {
  const client = ctx.upstreams.client(GB_UPSTREAM);
  const response = await client.get({ path: `/company/${number}`, headers: authorisation(ctx, key) });
  if (isProfileNotFound(response)) return { found: false };
  if (response.status !== 200) throw failed(response, `company ${number}`);
  const profile = parse<ChProfile>(response);
  if (profile.company_number !== number) {
    throw new UpstreamError(GB_UPSTREAM.name, `asked for ${number}, got ${profile.company_number}`);
  }
  return {
    found: true,
    company: { ...normaliseChProfile(profile), apiUrl: response.url },
    recordedSample: response.recordedSample,
  };
}
