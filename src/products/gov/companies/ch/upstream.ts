// Switzerland: Zefix PublicREST, the central business name index (Federal Office of Justice, FRC).
//
// Sources: the official OpenAPI (https://www.zefix.admin.ch/ZefixPublicREST/v3/api-docs, version 2.7.2.3, as
// kept by the generated client TenderLift/zefix-client spec/zefix.json): POST /api/v1/company/search with
// CompanySearchQuery {name (≥ 3 characters, the start of the name, * a wildcard), activeOnly, …} →
// CompanyShort[]; GET /api/v1/company/uid/{CHE123456789} → CompanyFull[] (an array); GET
// /api/v1/company/ehraid/{id} → one CompanyFull; errors as RestApiErrorResponse {"error": {"type":
// INTERNAL_SERVER_ERROR|INVALID_QUERY_WORDS|INVALID_REQUEST_DATA|RESULTLIST_TO_LARGE|NOT_FOUND, "message"}} with
// 400/404/500; HTTP Basic security scheme "Zefix-Credentials"; licence "OGD Open use. Must provide the source."
// (opendata.swiss terms_by). Operators' notes: credentials are requested from
// zefix@bj.admin.ch, a request without them answers 401; clients advise about one request a second; status
// ACTIVE|CANCELLED|BEING_CANCELLED. That client's notes: SOGC notice texts are served double-encoded on some days
// since 2026 — we serve no notice text, only the publications' dates and kinds.
// Limit: none published; one request a second, cluster-wide (GET and POST share the budget).
import { type ErrorOutcome, notConfigured } from "../../../../catalog/product.ts";
import { envString } from "../../../../config.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../../upstream/client.ts";
import { type CompanySearch, tooBroadSearch } from "../answers.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import {
  type ChCompany,
  type ChItem,
  normaliseZefixCompany,
  normaliseZefixItem,
  type ZefixFull,
  type ZefixShort,
} from "./normalise.ts";

export const ZEFIX_USER_SETTING = "ZEFIX_USERNAME";
export const ZEFIX_PASSWORD_SETTING = "ZEFIX_PASSWORD";

export const ZEFIX_UPSTREAM: UpstreamSpec = {
  name: "gov-ch-zefix",
  defaultBaseUrl: "https://www.zefix.admin.ch/ZefixPublicREST/api/v1",
  minIntervalMs: 1000,
  maxConcurrent: 1,
  timeoutMs: 7000,
  retries: 1,
};

export const CH_MAX_MATCHES = 20;
/** Zefix refuses shorter names (CompanySearchQuery.name minLength 3). */
export const CH_MIN_QUERY = 3;

export interface ZefixCredentials {
  user: string;
  password: string;
}

/** Read once, when the family is built; undefined unless both are set. */
export function zefixCredentials(env: Record<string, string | undefined>): ZefixCredentials | undefined {
  const user = envString(env, ZEFIX_USER_SETTING);
  const password = envString(env, ZEFIX_PASSWORD_SETTING);
  return user && password ? { user, password } : undefined;
}

/** Live mode without both settings: refused before payment (the route alone; the family stays up). */
export function zefixNotConfigured(): ErrorOutcome {
  return notConfigured("The Swiss company register (Zefix) is", "gov-companies", {
    reason: `${ZEFIX_USER_SETTING} and ${ZEFIX_PASSWORD_SETTING} are not both set.`,
    fix: `Request Zefix PublicREST credentials from zefix@bj.admin.ch and set ${ZEFIX_USER_SETTING} and ${ZEFIX_PASSWORD_SETTING}.`,
    docs: "https://www.zefix.admin.ch/ZefixPublicREST/",
  });
}

function authorisation(ctx: Ctx, credentials: ZefixCredentials | undefined): Record<string, string> {
  if (!credentials) {
    if (ctx.upstreams.mode === "replay") return {};
    throw new UpstreamError(
      ZEFIX_UPSTREAM.name,
      `${ZEFIX_USER_SETTING}/${ZEFIX_PASSWORD_SETTING} are not set`,
      undefined,
      true,
    );
  }
  const token = Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64");
  return { authorization: `Basic ${token}` };
}

/** Zefix's error type (RESULTLIST_TO_LARGE, NOT_FOUND, …) from a RestApiErrorResponse body. */
function errorType(response: UpstreamResponse): string | null {
  try {
    const type = (JSON.parse(response.body) as { error?: { type?: unknown } }).error?.type;
    return typeof type === "string" ? type : null;
  } catch {
    return null;
  }
}

function parse<T>(response: UpstreamResponse): T {
  if (response.status !== 200) {
    const type = errorType(response);
    const detail = response.status === 401 ? " (credentials refused)" : type ? ` ${type}` : "";
    throw new UpstreamError(
      ZEFIX_UPSTREAM.name,
      `HTTP ${response.status}${detail} from ${response.url}`,
      response.status,
    );
  }
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(ZEFIX_UPSTREAM.name, `not JSON from ${response.url}`, response.status);
  }
}

export async function searchChCompanies(
  ctx: Ctx,
  credentials: ZefixCredentials | undefined,
  q: string,
): Promise<{ search: CompanySearch<ChItem>; recordedSample: boolean }> {
  const response = await ctx.upstreams.client(ZEFIX_UPSTREAM).postJson(
    {
      path: "/company/search",
      headers: { accept: "application/json", ...authorisation(ctx, credentials) },
    },
    { name: q, activeOnly: false },
  );
  // Too broad a start of a name: the buyer is told to give more of it (the route answers 400, not charged,
  // and Zefix counts as having answered).
  if (response.status === 400 && errorType(response) === "RESULTLIST_TO_LARGE") {
    return tooBroadSearch(
      response,
      "Zefix finds too many companies whose name starts with q (RESULTLIST_TO_LARGE): give more of the name.",
    );
  }
  const rows = response.status === 404 ? [] : parse<ZefixShort[]>(response);
  const list = Array.isArray(rows) ? rows : [];
  return {
    search: {
      totalCount: list.length,
      items: list.slice(0, CH_MAX_MATCHES).map(normaliseZefixItem),
      source: response.url,
    },
    recordedSample: response.recordedSample,
  };
}

export async function lookupChCompany(
  ctx: Ctx,
  credentials: ZefixCredentials | undefined,
  id: string,
): Promise<CompanyLookup<ChCompany & { apiUrl: string }>> {
  const path = id.startsWith("CHE") ? `/company/uid/${id}` : `/company/ehraid/${id}`;
  const response = await ctx.upstreams
    .client(ZEFIX_UPSTREAM)
    .get({ path, headers: authorisation(ctx, credentials) });
  if (response.status === 404) return { found: false };
  const body = parse<ZefixFull | ZefixFull[]>(response);
  // By UID an array: the registered entity, or (rarely) several with one UID; the active one first.
  const candidates = (Array.isArray(body) ? body : [body]).filter((c) => c && typeof c === "object");
  const company = candidates.find((c) => c.status === "ACTIVE") ?? candidates[0];
  if (!company) return { found: false };
  return {
    found: true,
    company: { ...normaliseZefixCompany(company), apiUrl: response.url },
    recordedSample: response.recordedSample,
  };
}
