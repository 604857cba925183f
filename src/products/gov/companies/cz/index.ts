// Czechia: GET /v1/gov/cz/companies — `q` a name or `id` an 8-digit IČO (check digit validated).
import type { CountryModuleFactory, GovRouteInfo } from "../../shared/gov-product.ts";
import { lookupQuery } from "../../shared/query.ts";
import { companyAnswer } from "../answers.ts";
import { parseCzIco } from "../identifiers.ts";
import { companyRoute } from "../register.ts";
import { CzExtrasShape, CzItemExtrasShape } from "./normalise.ts";
import { CZ_MAX_MATCHES, lookupCzCompany, searchCzCompanies } from "./upstream.ts";

const CZ_INFO: GovRouteInfo = {
  cc: "cz",
  country: "Czechia",
  family: "companies",
  upstream: "ARES (Ministry of Finance)",
  licence: {
    name: "Podmínky užívání otevřených dat Ministerstva financí ČR (MF ČR open-data terms)",
    url: "https://data.mfcr.cz/cs/podminky-uzivani",
    attribution:
      "Zdroj: ARES – Administrativní registr ekonomických subjektů, Ministerstvo financí ČR (MFČR)",
    notice:
      "MFČR does not endorse this service or the way it uses the data. ARES gathers the source registers' data, " +
      "which are informative and may differ between registers.",
  },
  warmers: [],
};

export const czCompanies: CountryModuleFactory = () => {
  const { route, jobs } = companyRoute({
    info: CZ_INFO,
    upstreamUrl: "https://ares.gov.cz/",
    summary: "Czech companies: name search or IČO (ARES)",
    description:
      `A name search over ARES, Czechia's register of economic subjects (q, up to ${CZ_MAX_MATCHES} matches), or ` +
      "one subject by its 8-digit IČO (id, check digit validated before payment) with its public-register " +
      "extract: registering court and file number, names with their validity windows, registered capital, " +
      "objects of business. A name matching more than 1,000 subjects (more than ARES lists) answers 400 " +
      "query_too_broad naming q, not charged. Searches are asked live and cached for 12 hours; a subject not cached yet answers " +
      "404 (not charged) and is fetched within about a minute. Company facts only: no statutory bodies, " +
      "partners or shareholders.",
    query: lookupQuery({
      id: { describe: "One subject: its 8-digit IČO", parse: (raw) => parseCzIco(raw) },
      qDescribe: "Business name (or part of it)",
    }),
    sample: { q: "čez" },
    answer: companyAnswer(CzExtrasShape, CzItemExtrasShape),
    pick: (query: { q?: string; id?: string }) =>
      query.id !== undefined ? { id: query.id } : { q: query.q as string },
    parseId: (raw) => parseCzIco(raw),
    what: (id) => `The subject with IČO ${id} in ARES`,
    lookup: lookupCzCompany,
    search: searchCzCompanies,
  });
  return { cc: "cz", products: [route], jobs };
};
