// One open-data route per portal: GET /v1/gov/<cc>/open-data with `q` (a keyword search asked of the portal
// live within the paid call and cached by the query's hash) or `id` (one dataset, queued on a miss).
import { ok, product } from "../../../catalog/product.ts";
import type { Config } from "../../../config.ts";
import { withFetchHealth } from "../../../upstream/live-cache.ts";
import { type CountryModuleFactory, type GovRouteInfo, govProduct, govSku } from "../shared/gov-product.ts";
import { cachedItemOrQueue, storeItem, storeMissing } from "../shared/item-cache.ts";
import { liveSearch } from "../shared/live-search.ts";
import { lookupQuery } from "../shared/query.ts";
import {
  datasetAnswer,
  openDataAnswer,
  type PortalSearch,
  type StoredDataset,
  searchAnswer,
} from "./dataset.ts";
import type { Portal, PortalAdapter } from "./portal.ts";

/** A portal's answer to a search is served this long before it is asked again. */
const SEARCH_FRESH_MS = 12 * 3600_000;
/** A stored dataset older than this is still served, and a refresh is queued. */
const DATASET_REFRESH_MS = 24 * 3600_000;

export function datasetQueue(cc: string): string {
  return `gov.${cc}.open-data.dataset`;
}

export function openDataModule(
  configured: Portal,
  adapterOf: PortalAdapter | ((config: Config) => PortalAdapter),
): CountryModuleFactory {
  return (config) => {
    const portal: Portal = configured.labelFor
      ? { ...configured, label: configured.labelFor(config) }
      : configured;
    const adapter = typeof adapterOf === "function" ? adapterOf(config) : adapterOf;
    const sku = govSku(portal.cc, "open_data");
    const info: GovRouteInfo = {
      cc: portal.cc,
      country: portal.country,
      family: "open_data",
      upstream: portal.label,
      licence: portal.licence,
      warmers: [],
    };
    const cacheFamily = `gov-od-${portal.cc}`;
    const route = govProduct(
      info,
      product({
        sku,
        method: "GET",
        path: `/v1/gov/${portal.cc}/open-data`,
        summary: `Open-data portal search: ${portal.country} (${portal.label})`,
        description:
          `Keyword search over ${portal.label}, ${portal.country}'s open-data catalogue (q), or one dataset by its ` +
          "id from a result (id). Titles in the country's language, else English. Searches are asked of the " +
          "portal live and cached for 12 hours; a dataset not cached yet answers 404 (not charged) and is fetched " +
          "within about a minute. The portal's metadata licence comes with every answer, each dataset's data " +
          "licence as the portal gives it.",
        status: "live",
        price: "0.005",
        query: lookupQuery({
          id: {
            describe: `One dataset: ${portal.id.describe}`,
            parse: (raw) =>
              portal.id.pattern.test(raw)
                ? { id: raw }
                : { error: `id must be ${portal.id.describe}; got ${JSON.stringify(raw.slice(0, 60))}` },
          },
          qDescribe: "Keywords, in any language the portal indexes",
        }),
        answer: openDataAnswer(),
        sample: { q: portal.sampleQuery },
        source: { name: portal.label, url: portal.upstream.defaultBaseUrl, licence: portal.licence },

        async handle({ query }, ctx) {
          if (query.id !== undefined) {
            const id = query.id;
            const lookup = await cachedItemOrQueue<StoredDataset>(ctx, {
              cacheFamily,
              key: id,
              queue: datasetQueue(portal.cc),
              payload: { id },
              what: `Dataset ${id} of ${portal.label}`,
              refreshAfterMs: DATASET_REFRESH_MS,
            });
            return lookup.found ? ok(datasetAnswer(info, lookup.doc)) : lookup.outcome;
          }
          const q = query.q as string;
          const result = await liveSearch<PortalSearch>(ctx, {
            cacheFamily: `${cacheFamily}-search`,
            query: q,
            freshMs: SEARCH_FRESH_MS,
            sku,
            upstream: portal.label,
            fetch: async () => {
              const { search, recordedSample } = await adapter.search(ctx, portal, q);
              return { body: search, recordedSample };
            },
          });
          return result.ok ? ok(searchAnswer(info, q, result.doc)) : result.outcome;
        },
      }),
    );
    return {
      cc: portal.cc,
      products: [route],
      jobs: {
        [datasetQueue(portal.cc)]: async (payload, ctx) => {
          const id = (payload as { id?: unknown } | null)?.id;
          if (typeof id !== "string" || !portal.id.pattern.test(id)) {
            throw new Error(`${datasetQueue(portal.cc)} needs a dataset id, got ${JSON.stringify(id)}`);
          }
          await withFetchHealth(ctx, sku, async () => {
            const found = await adapter.dataset(ctx, portal, id);
            if (!found.found) {
              await storeMissing(ctx, cacheFamily, id);
            } else {
              const body: StoredDataset = { dataset: found.dataset, apiUrl: found.apiUrl };
              await storeItem(ctx, cacheFamily, id, body, found.recordedSample);
            }
          });
        },
      },
    };
  };
}
