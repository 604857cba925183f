// The twelve national portals and the API family that speaks for each (issue 13). Base URLs are the
// documented production ones (shared/reference/upstreams-gov.md part B); GOV_<CC>_OPEN_DATA_BASE_URL moves one.
import type { UpstreamSpec } from "../../../upstream/client.ts";
import { LICENCES } from "../shared/licences.ts";
import { ckanAdapter } from "./adapters/ckan.ts";
import { type Portal, type PortalAdapter, SLUG_ID } from "./portal.ts";

function upstream(cc: string, defaultBaseUrl: string): UpstreamSpec {
  // None of these portals publishes a rate limit: one request at a time, half a second apart, 8 s timeout
  // (a buyer waits for a live search), one retry.
  return {
    name: `gov-${cc}-open-data`,
    defaultBaseUrl,
    maxConcurrent: 1,
    minIntervalMs: 500,
    timeoutMs: 8000,
    retries: 1,
    maxRetryAfterMs: 5000,
  };
}

const terms = (name: string, url: string) => ({ name, url });

export interface PortalEntry {
  portal: Portal;
  adapter: PortalAdapter;
}

export const OPEN_DATA_PORTALS: PortalEntry[] = [
  {
    portal: {
      cc: "au",
      country: "Australia",
      label: "data.gov.au (CKAN)",
      upstream: upstream("au", "https://data.gov.au/data/api/3/action"),
      languages: ["en"],
      licence: LICENCES.ccBy40("Metadata: data.gov.au, Commonwealth of Australia"),
      sampleQuery: "bushfire",
      id: SLUG_ID,
    },
    adapter: ckanAdapter({ datasetPage: (pkg) => `https://data.gov.au/data/dataset/${pkg.name ?? pkg.id}` }),
  },
  {
    portal: {
      cc: "ca",
      country: "Canada",
      label: "open.canada.ca (CKAN)",
      upstream: upstream("ca", "https://open.canada.ca/data/api/3/action"),
      languages: ["en", "fr"],
      licence: LICENCES.oglCanada20(
        "Contains information licensed under the Open Government Licence – Canada",
      ),
      sampleQuery: "wildfire",
      id: SLUG_ID,
    },
    adapter: ckanAdapter({
      datasetPage: (pkg) => `https://open.canada.ca/data/en/dataset/${pkg.id ?? pkg.name}`,
      packageFields: "bilingual",
    }),
  },
  {
    portal: {
      cc: "ch",
      country: "Switzerland",
      label: "opendata.swiss (CKAN)",
      upstream: upstream("ch", "https://ckan.opendata.swiss/api/3/action"),
      languages: ["de", "fr", "it", "rm", "en"],
      licence: terms("opendata.swiss terms of use (metadata)", "https://opendata.swiss/en/terms-of-use"),
      sampleQuery: "Luftqualität",
      id: SLUG_ID,
    },
    adapter: ckanAdapter({ datasetPage: (pkg) => `https://opendata.swiss/de/dataset/${pkg.name ?? pkg.id}` }),
  },
  {
    portal: {
      cc: "de",
      country: "Germany",
      label: "GovData (CKAN)",
      upstream: upstream("de", "https://ckan.govdata.de/api/3/action"),
      languages: ["de", "en"],
      licence: LICENCES.dlDeBy20("Metadaten: GovData, Geschäfts- und Koordinierungsstelle GovData"),
      sampleQuery: "Luftqualität",
      id: SLUG_ID,
    },
    adapter: ckanAdapter({
      datasetPage: (pkg) => `https://www.govdata.de/suche/daten/${pkg.name ?? pkg.id}`,
      packageFields: "slug",
    }),
  },
  {
    portal: {
      cc: "gb",
      country: "United Kingdom",
      label: "data.gov.uk (CKAN)",
      upstream: upstream("gb", "https://ckan.publishing.service.gov.uk/api/3/action"),
      languages: ["en"],
      licence: LICENCES.oglV3(
        "Contains public sector information licensed under the Open Government Licence v3.0",
      ),
      sampleQuery: "air quality",
      id: SLUG_ID,
    },
    adapter: ckanAdapter({
      datasetPage: (pkg) => `https://www.data.gov.uk/dataset/${pkg.id}/${pkg.name ?? ""}`.replace(/\/$/, ""),
    }),
  },
  {
    portal: {
      cc: "jp",
      country: "Japan",
      label: "e-Gov data portal (CKAN)",
      // Non-standard: no /3/ in the action path.
      upstream: upstream("jp", "https://data.e-gov.go.jp/data/api/action"),
      languages: ["ja", "en"],
      licence: LICENCES.pdl10("出典：e-Govデータポータル (https://data.e-gov.go.jp/)"),
      sampleQuery: "人口",
      id: SLUG_ID,
    },
    adapter: ckanAdapter({
      datasetPage: (pkg) => `https://data.e-gov.go.jp/data/dataset/${pkg.name ?? pkg.id}`,
    }),
  },
];
