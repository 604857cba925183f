// RDAP registry adapters. Sources: RFC 9082 (query paths: <base>domain/<name>), RFC 9083 (domain object,
// entities with jCard, events, secureDNS, notices, error bodies), RFC 9224 (bootstrap), RFC 9537 (redaction),
// RFC 7480 (HTTP usage: Accept application/rdap+json, 3xx referrals to another server, 429 with Retry-After),
// a real Verisign answer and public RDAP clients' fixtures. No key.
// Limits are per registry and unpublished; a 429 pauses that registry for its Retry-After (default 60 s) on
// every node, and a buyer is never kept waiting for it. Terms: each registry's own, from the answer's
// `notices`; they typically forbid high-volume querying and marketing use, so answers are cached a day.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import type { PutDocument } from "../../store/cache.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { RDAP_CACHE } from "./bootstrap.ts";
import { normaliseDomain, RdapShapeError, rdapErrorOf, type StoredDomain } from "./normalise.ts";

const DOMAIN_TTL_MS = 24 * 3600_000;
const NOT_FOUND_TTL_MS = 3600_000;
const DEFAULT_PAUSE_SEC = 60;

export const RDAP_SOURCE: SourceInfo = {
  name:
    "RDAP (Registration Data Access Protocol) of the registry serving each TLD, found through IANA's bootstrap " +
    "or, for TLDs it omits, a supplement of registries with a documented RDAP service",
  url: "https://data.iana.org/rdap/dns.json",
  licence: {
    name: "Terms of service of the registry that answered (named in each answer); IANA bootstrap freely usable",
    url: "https://www.iana.org/help/terms-of-service",
  },
  notice:
    "Registration data as published by the registry; contacts are often redacted under registry policy.",
};

/** One polite client per registry base URL (host and path), so each registry's pace is its own. */
export function registrySpec(baseUrl: string): UpstreamSpec {
  const url = new URL(baseUrl);
  return {
    name: `rdap-registry:${url.host}${url.pathname.replace(/\/+$/, "")}`,
    defaultBaseUrl: baseUrl.replace(/\/+$/, ""),
    budget: `rdap-host:${url.host}`,
    maxConcurrent: 2,
    minIntervalMs: 500,
    timeoutMs: 8_000,
    retries: 1,
    maxRetryAfterMs: 3_000,
  };
}

export interface DomainMissing {
  missing: true;
  title: string | null;
  description: string[];
  checkedAt: string;
}

export function isMissing(body: unknown): body is DomainMissing {
  return typeof body === "object" && body !== null && (body as DomainMissing).missing === true;
}

export class RdapUnavailable extends Error {
  readonly status: number | undefined;
  /** Set when the registry asked for a pause (429). */
  readonly retryAfterSec: number | undefined;
  constructor(message: string, status?: number, retryAfterSec?: number) {
    super(message);
    this.status = status;
    this.retryAfterSec = retryAfterSec;
  }
}

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

const pauseKey = (host: string) => `pause:${host}`;

/** Seconds the registry on this host asked us to wait that are still left (0: none). */
export async function pauseLeftSec(ctx: Ctx, host: string, now = Date.now()): Promise<number> {
  const doc = await ctx.store.cache.getRecent<{ until: string }>(RDAP_CACHE, pauseKey(host), 1000);
  const until = doc ? Date.parse(doc.body.until) : Number.NaN;
  return Number.isNaN(until) || until <= now ? 0 : Math.ceil((until - now) / 1000);
}

async function pause(ctx: Ctx, host: string, seconds: number): Promise<void> {
  const now = new Date();
  await ctx.store.cache.put(RDAP_CACHE, pauseKey(host), {
    body: { until: new Date(now.getTime() + seconds * 1000).toISOString() },
    fetchedAt: now.toISOString(),
  });
}

function retryAfterSecOf(header: string | null): number {
  const value = header?.trim() ?? "";
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const date = Date.parse(value);
  return Number.isNaN(date) ? DEFAULT_PAUSE_SEC : Math.max(1, Math.ceil((date - Date.now()) / 1000));
}

export const domainPath = (ascii: string) => `/domain/${ascii}`;

export async function fetchDomain(
  ctx: Ctx,
  baseUrl: string,
  ascii: string,
): Promise<PutDocument<StoredDomain | DomainMissing>> {
  const host = new URL(baseUrl).host;
  const left = await pauseLeftSec(ctx, host);
  if (left > 0)
    throw new RdapUnavailable(`the registry at ${host} asked for a pause; ${left} s left`, 429, left);
  const client = ctx.upstreams.client(registrySpec(baseUrl));
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({ path: domainPath(ascii), headers: { accept: "application/rdap+json" } });
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 429) {
      const seconds = error.retryAfterMs ? Math.ceil(error.retryAfterMs / 1000) : DEFAULT_PAUSE_SEC;
      await pause(ctx, host, seconds);
      throw new RdapUnavailable(error.message, 429, seconds);
    }
    if (error instanceof UpstreamError) throw new RdapUnavailable(error.message, error.status);
    throw new RdapUnavailable(`rdap: ${String(error)}`);
  }
  const now = new Date();
  const fetchedAt = now.toISOString();
  if (response.status === 429) {
    // A recorded 429 (replay) arrives here; it is answered, but does not pause the registry.
    const seconds = retryAfterSecOf(response.headers.get("retry-after"));
    if (!response.recordedSample) await pause(ctx, host, seconds);
    throw new RdapUnavailable(`rdap: HTTP 429 from ${response.url}`, 429, seconds);
  }
  if (response.status === 404) {
    const error = rdapErrorOf(response.body);
    return {
      body: { missing: true, title: error.title, description: error.description, checkedAt: fetchedAt },
      fetchedAt,
      expiresAt: new Date(now.getTime() + NOT_FOUND_TTL_MS).toISOString(),
      recordedSample: response.recordedSample,
    };
  }
  if (response.status !== 200) {
    throw new RdapUnavailable(`rdap: HTTP ${response.status} from ${response.url}`, response.status);
  }
  try {
    return {
      body: normaliseDomain(response.body),
      fetchedAt,
      expiresAt: new Date(now.getTime() + DOMAIN_TTL_MS).toISOString(),
      recordedSample: response.recordedSample,
    };
  } catch (error) {
    if (error instanceof RdapShapeError)
      throw new RdapUnavailable(`rdap: ${error.message} (${response.url})`, 200);
    throw error;
  }
}
