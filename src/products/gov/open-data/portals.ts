// The twelve national portals and the API family that speaks for each. Base URLs are the
// documented production ones; GOV_<CC>_OPEN_DATA_BASE_URL moves one.
import type { Config } from "../../../config.ts";
import type { UpstreamSpec } from "../../../upstream/client.ts";
import { LICENCES } from "../shared/licences.ts";
import { ckanAdapter } from "./adapters/ckan.ts";
import { daneAdapter } from "./adapters/dane.ts";
import { datagovAdapter, datagovApiKey } from "./adapters/datagov.ts";
import { NKOD_ID, nkodAdapter } from "./adapters/nkod.ts";
import { piveauAdapter } from "./adapters/piveau.ts";
import { udataAdapter } from "./adapters/udata.ts";
import { type Portal, type PortalAdapter, SLUG_ID } from "./portal.ts";

function upstream(cc: string, defaultBaseUrl: string, minIntervalMs = 500): UpstreamSpec {
  // None of these portals publishes a rate limit: one request at a time, half a second apart, 8 s timeout
  // (a buyer waits for a live search), one retry.
  return {
    name: `gov-${cc}-open-data`,
    defaultBaseUrl,
    maxConcurrent: 1,
    minIntervalMs,
    timeoutMs: 8000,
    retries: 1,
    maxRetryAfterMs: 5000,
  };
}

const terms = (name: string, url: string) => ({ name, url });

interface PortalEntry {
  portal: Portal;
  /** Its API family; built from the settings, once when the family is built, where it takes one (a key). */
  adapter: PortalAdapter | ((config: Config) => PortalAdapter);
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
  {
    portal: {
      cc: "at",
      country: "Austria",
      label: "data.gv.at (piveau hub-search)",
      upstream: upstream("at", "https://www.data.gv.at/api/hub/search"),
      languages: ["de", "en"],
      licence: LICENCES.ccBy40("Metadaten: data.gv.at – Offene Daten Österreichs"),
      sampleQuery: "Luftgüte",
      id: SLUG_ID,
    },
    adapter: piveauAdapter({
      datasetPage: (id) => `https://www.data.gv.at/datasets/${encodeURIComponent(id)}?locale=de`,
    }),
  },
  {
    portal: {
      cc: "eu",
      country: "European Union",
      label: "data.europa.eu (piveau hub-search)",
      upstream: upstream("eu", "https://data.europa.eu/api/hub/search"),
      languages: ["en", "fr", "de"],
      licence: LICENCES.cc0(
        "Metadata: data.europa.eu, the official portal for European data, © European Union",
      ),
      sampleQuery: "air quality",
      id: SLUG_ID,
    },
    adapter: piveauAdapter({
      datasetPage: (id) => `https://data.europa.eu/data/datasets/${encodeURIComponent(id)}?locale=en`,
    }),
  },
  {
    portal: {
      cc: "fr",
      country: "France",
      label: "data.gouv.fr (udata)",
      upstream: upstream("fr", "https://www.data.gouv.fr/api/1"),
      languages: ["fr", "en"],
      licence: LICENCES.licenceOuverte20("Métadonnées : data.gouv.fr (Etalab / DINUM)"),
      sampleQuery: "qualité de l'air",
      id: SLUG_ID,
    },
    adapter: udataAdapter,
  },
  {
    portal: {
      cc: "pl",
      country: "Poland",
      label: "dane.gov.pl (API 1.4)",
      upstream: upstream("pl", "https://api.dane.gov.pl/1.4"),
      languages: ["pl", "en"],
      licence: terms(
        "dane.gov.pl: public sector information for re-use under the Polish Open Data Act (Dz.U. 2021 poz. 1641); each dataset's own licence applies",
        "https://dane.gov.pl/",
      ),
      sampleQuery: "jakość powietrza",
      id: {
        pattern: /^[1-9][0-9]{0,9}$/,
        describe: "a dane.gov.pl dataset number from a search result, e.g. 1667",
      },
    },
    adapter: daneAdapter,
  },
  {
    portal: {
      cc: "us",
      country: "United States",
      label: "catalog.data.gov (Catalog API)",
      labelFor: (config) =>
        datagovApiKey(config.env)
          ? "catalog.data.gov (Catalog API v4 at api.gsa.gov, api.data.gov key)"
          : "catalog.data.gov (Catalog API, keyless site backend)",
      upstream: upstream("us", "https://catalog.data.gov"),
      languages: ["en"],
      licence: terms(
        "data.gov catalog metadata: records harvested from federal agencies (US government works, 17 U.S.C. 105) " +
          "and from states, counties, cities, tribes, universities and non-profits (not US government works; " +
          "their publishers' terms apply): each item's licenceNote says which, and dataLicence is the record's own",
        "https://resources.data.gov/catalog-api/",
      ),
      sampleQuery: "education",
      id: SLUG_ID,
    },
    adapter: datagovAdapter,
  },
  {
    portal: {
      cc: "cz",
      country: "Czechia",
      label: "NKOD data.gov.cz (SPARQL)",
      // A title filter is work for the endpoint: one search a second at most.
      upstream: upstream("cz", "https://data.gov.cz", 1000),
      languages: ["cs", "en"],
      licence: terms(
        "Národní katalog otevřených dat (NKOD), Digitální a informační agentura: catalogue records published as open data; each dataset's terms of use (podmínky užití) apply",
        "https://data.gov.cz/",
      ),
      sampleQuery: "životní prostředí",
      id: NKOD_ID,
    },
    adapter: nkodAdapter,
  },
];
