// One national open-data portal: where it is, which API family speaks for it, its languages and its
// metadata licence. A portal that moves is one setting (GOV_<CC>_OPEN_DATA_BASE_URL), not a code change.
import type { HandlerContext } from "../../../catalog/product.ts";
import type { Config } from "../../../config.ts";
import type { UpstreamSpec } from "../../../upstream/client.ts";
import type { Licence } from "../shared/licences.ts";
import type { DatasetDetailBody, PortalSearch } from "./dataset.ts";

export interface Portal {
  cc: string;
  country: string;
  /** As a buyer knows it: "data.gov.au (CKAN)". */
  label: string;
  /** A label that depends on the settings (which API answers: a keyed one or a keyless one). */
  labelFor?: (config: Config) => string;
  upstream: UpstreamSpec;
  /** Title languages in order of preference: the country's own first, then English. */
  languages: readonly string[];
  /** The portal's metadata licence or terms. */
  licence: Licence;
  /** The one free request: a keyword search whose recording answers offline. */
  sampleQuery: string;
  /** Dataset ids this portal uses, and how to describe them in a 400. */
  id: { pattern: RegExp; describe: string };
}

/** What an adapter may use per call: the upstream clients (a key some portals take is its own, read at start). */
export type Ctx = Pick<HandlerContext, "upstreams">;

export type DatasetLookup =
  | { found: true; dataset: DatasetDetailBody; apiUrl: string; recordedSample: boolean }
  | { found: false };

/** One API family (CKAN, piveau, udata, …): how to search a portal of that kind and read one dataset. */
export interface PortalAdapter {
  search: (
    ctx: Ctx,
    portal: Portal,
    query: string,
  ) => Promise<{ search: PortalSearch; recordedSample: boolean }>;
  dataset: (ctx: Ctx, portal: Portal, id: string) => Promise<DatasetLookup>;
}

/** Results asked of a portal per search. */
export const PAGE_SIZE = 20;
/** Resources listed on a single dataset answer. */
export const MAX_RESOURCES = 100;

/** Slugs and UUIDs as CKAN, piveau and udata use them. */
export const SLUG_ID = {
  pattern: /^[A-Za-z0-9][A-Za-z0-9._~:-]{0,199}$/,
  describe: "a dataset id or name (slug) from a search result, e.g. 0b6f2c1e-… or dataset-name",
};
