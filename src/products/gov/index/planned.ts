// The /v1/gov routes the service promises that are not built yet. GET /v1/gov lists them as `planned` until a family
// declares the route; a declared route always wins, so this list only ever shrinks.
import type { GovFamilyName } from "../shared/gov-product.ts";

interface PlannedRoute {
  cc: string;
  country: string;
  family: GovFamilyName;
  path: string;
  priceUsd: string;
  upstream: string;
}

const COUNTRIES: Record<string, string> = {
  at: "Austria",
  au: "Australia",
  br: "Brazil",
  ca: "Canada",
  ch: "Switzerland",
  cz: "Czechia",
  de: "Germany",
  eu: "European Union",
  fr: "France",
  gb: "United Kingdom",
  jp: "Japan",
  pl: "Poland",
  sk: "Slovakia",
  us: "United States",
};

function countryName(cc: string): string {
  return COUNTRIES[cc] ?? cc.toUpperCase();
}

const LEGISLATION: Record<string, string> = {
  at: "RIS OGD API (Bundesrecht)",
  au: "Federal Register of Legislation",
  ca: "Justice Laws XML",
  ch: "Fedlex",
  de: "gesetze-im-internet.de",
  eu: "EUR-Lex / Cellar",
  gb: "legislation.gov.uk",
  jp: "e-Gov law API",
  pl: "Sejm ELI API",
  us: "eCFR",
};

const OPEN_DATA: Record<string, string> = {
  at: "data.gv.at (piveau)",
  au: "data.gov.au (CKAN)",
  ca: "open.canada.ca (CKAN)",
  ch: "opendata.swiss (CKAN)",
  cz: "data.gov.cz (NKOD)",
  de: "GovData (CKAN)",
  eu: "data.europa.eu (piveau)",
  fr: "data.gouv.fr (udata)",
  gb: "data.gov.uk (CKAN)",
  jp: "e-Gov data portal (CKAN)",
  pl: "dane.gov.pl",
  us: "catalog.data.gov",
};

const COMPANIES: Record<string, string> = {
  br: "Receita Federal CNPJ open data",
  ca: "Corporations Canada federal bulk data",
  ch: "Zefix PublicREST",
  cz: "ARES",
  fr: "recherche-entreprises API",
  gb: "Companies House API",
  pl: "KRS open API",
  sk: "RPO",
};

function routes(family: GovFamilyName, segment: string, table: Record<string, string>): PlannedRoute[] {
  return Object.entries(table).map(([cc, upstream]) => ({
    cc,
    country: countryName(cc),
    family,
    path: cc === "eu" && family === "legislation" ? "/v1/gov/eu/eurlex" : `/v1/gov/${cc}/${segment}`,
    priceUsd: "0.005",
    upstream,
  }));
}

export const PLANNED_ROUTES: PlannedRoute[] = [
  ...routes("legislation", "legislation", LEGISLATION),
  ...routes("open_data", "open-data", OPEN_DATA),
  ...routes("companies", "companies", COMPANIES),
  {
    cc: "sk",
    country: countryName("sk"),
    family: "accounts",
    path: "/v1/gov/sk/accounts",
    priceUsd: "0.01",
    upstream: "RÚZ (register of financial statements)",
  },
];
