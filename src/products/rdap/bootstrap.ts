// The IANA RDAP bootstrap file for domains (RFC 9224, https://data.iana.org/rdap/dns.json): which RDAP base
// URL serves which TLD. Refreshed daily by a warmer (IANA publishes it with a `publication` date); fetched
// live if a paid call finds none cached. Many ccTLDs are absent: most have no RDAP service, but some
// registries run one IANA does not list (de, io, co, ch …): supplement.ts routes those.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import type { PutDocument } from "../../store/cache.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { type LiveCacheResult, liveCached, refreshOnce } from "../../upstream/live-cache.ts";

export const IANA_RDAP: UpstreamSpec = {
  name: "iana-rdap",
  defaultBaseUrl: "https://data.iana.org",
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 15_000,
  retries: 2,
};

export const BOOTSTRAP_PATH = "/rdap/dns.json";
export const RDAP_CACHE = "rdap";
export const BOOTSTRAP_KEY = "bootstrap";
const BOOTSTRAP_TTL_MS = 24 * 3600_000;
const RDAP_BOOTSTRAP_WARMER = "rdap.bootstrap";

export interface Bootstrap {
  publication: string | null;
  /** TLD (or longer suffix) → RDAP base URLs, as listed. */
  services: Record<string, string[]>;
}

class BootstrapError extends Error {}

export function parseBootstrap(body: string): Bootstrap {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new BootstrapError("the bootstrap file is not JSON");
  }
  const services = (doc as { services?: unknown }).services;
  if (!Array.isArray(services)) throw new BootstrapError("the bootstrap file has no services");
  const map: Record<string, string[]> = {};
  for (const service of services) {
    if (!Array.isArray(service) || !Array.isArray(service[0]) || !Array.isArray(service[1])) continue;
    const urls = (service[1] as unknown[]).filter(
      (u): u is string => typeof u === "string" && /^https?:\/\//.test(u),
    );
    if (urls.length === 0) continue;
    for (const suffix of service[0] as unknown[]) {
      if (typeof suffix === "string") map[suffix.toLowerCase()] = urls;
    }
  }
  const publication = (doc as { publication?: unknown }).publication;
  return { publication: typeof publication === "string" ? publication : null, services: map };
}

/** The longest listed suffix of the domain and its base URL (https preferred; always ending in "/"). */
export function registryFor(
  bootstrap: Bootstrap,
  labels: string[],
): { suffix: string; baseUrl: string } | undefined {
  for (let i = 1; i < labels.length; i++) {
    const suffix = labels.slice(i).join(".");
    const urls = bootstrap.services[suffix];
    if (!urls) continue;
    const url = urls.find((u) => u.startsWith("https://")) ?? (urls[0] as string);
    return { suffix, baseUrl: url.endsWith("/") ? url : `${url}/` };
  }
  return undefined;
}

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

async function fetchBootstrap(ctx: Ctx): Promise<PutDocument<Bootstrap>> {
  const client = ctx.upstreams.client(IANA_RDAP);
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({ path: BOOTSTRAP_PATH, headers: { accept: "application/json" } });
  } catch (error) {
    if (error instanceof UpstreamError) throw new BootstrapError(error.message);
    throw error;
  }
  if (response.status !== 200)
    throw new BootstrapError(`iana-rdap: HTTP ${response.status} from ${response.url}`);
  const now = new Date();
  return {
    body: parseBootstrap(response.body),
    fetchedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + BOOTSTRAP_TTL_MS).toISOString(),
    recordedSample: response.recordedSample,
  };
}

const request = (ctx: Ctx, timeoutMs?: number) => ({
  cacheFamily: RDAP_CACHE,
  key: BOOTSTRAP_KEY,
  ...(timeoutMs ? { timeoutMs } : {}),
  fetch: () => fetchBootstrap(ctx),
});

/** The cached bootstrap; fetched live (bounded) when none is cached or it is over a day old. */
export function currentBootstrap(ctx: Ctx, timeoutMs?: number): Promise<LiveCacheResult<Bootstrap>> {
  return liveCached(ctx, request(ctx, timeoutMs));
}

export const rdapBootstrapWarmer: Warmer = {
  name: RDAP_BOOTSTRAP_WARMER,
  everyMs: BOOTSTRAP_TTL_MS,
  async run(ctx) {
    const previous = await ctx.store.cache.get<Bootstrap>(RDAP_CACHE, BOOTSTRAP_KEY);
    const doc = await refreshOnce(ctx, request(ctx), previous);
    return { tlds: Object.keys(doc.body.services).length, publication: doc.body.publication };
  },
};
