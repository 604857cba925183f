// France: GET /v1/gov/fr/companies — `q` a name (up to 10 legal entities) or `id` a 9-digit SIREN (Luhn).
import type { CountryModuleFactory, GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { companyAnswer } from "../answers.ts";
import { parseSiren } from "../identifiers.ts";
import { companyRoute } from "../register.ts";
import { FrExtrasShape } from "./normalise.ts";
import { FR_MAX_MATCHES, lookupFrCompany, searchFrCompanies } from "./upstream.ts";

const FR_INFO: GovRouteInfo = {
  cc: "fr",
  country: "France",
  family: "companies",
  upstream: "API Recherche d'entreprises (Sirene, RNE)",
  licence: LICENCES.licenceOuverte20(
    "Source: API Recherche d'entreprises (DINUM, annuaire-entreprises.data.gouv.fr), from the Sirene register " +
      "(INSEE) and the Registre national des entreprises (INPI)",
  ),
  warmers: [],
};

export const frCompanies: CountryModuleFactory = () => {
  const { route, jobs } = companyRoute({
    info: FR_INFO,
    upstreamUrl: "https://recherche-entreprises.api.gouv.fr/docs/",
    summary: "French companies: name search or SIREN (Recherche d'entreprises)",
    description:
      `A name search over France's company register (q, up to ${FR_MAX_MATCHES} matches) or one company by its ` +
      "9-digit SIREN (id, Luhn-checked before payment). Legal entities only: sole traders are left out. The " +
      "legal form is the INSEE catégorie juridique code (5710 = SAS, 5499 = SARL). Searches are asked live and " +
      "cached for 12 hours; a company not cached yet answers 404 (not charged) and is fetched within about a " +
      "minute. Company facts only, no directors.",
    query: lookupQuery({
      id: { describe: "One company: its 9-digit SIREN (spaces allowed)", parse: (raw) => parseSiren(raw) },
      qDescribe: "Company name (or part of it)",
    }),
    sample: { q: "alan" },
    answer: companyAnswer(FrExtrasShape, FrExtrasShape),
    pick: (query: { q?: string; id?: string }) =>
      query.id !== undefined ? { id: query.id } : { q: query.q as string },
    parseId: (raw) => parseSiren(raw),
    what: (id) => `The legal entity with SIREN ${id} in the Recherche d'entreprises API`,
    lookup: lookupFrCompany,
    search: searchFrCompanies,
  });
  return { cc: "fr", products: [route], jobs };
};
