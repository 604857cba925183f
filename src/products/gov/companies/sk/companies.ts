// Slovakia: GET /v1/gov/sk/companies — `q` a name or `id` an IČO of 6 to 8 digits (RPO).
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { companyAnswer } from "../answers.ts";
import { parseSkIco } from "../identifiers.ts";
import { companyRoute } from "../register.ts";
import { SkExtrasShape, SkItemExtrasShape } from "./rpo-normalise.ts";
import { lookupSkCompany, SK_MAX_MATCHES, searchSkCompanies } from "./rpo-upstream.ts";

export const SK_COMPANIES_INFO: GovRouteInfo = {
  cc: "sk",
  country: "Slovakia",
  family: "companies",
  upstream: "RPO (Statistical Office of the Slovak Republic)",
  licence: LICENCES.ccBy40(
    "Register právnických osôb, podnikateľov a orgánov verejnej moci (RPO), Štatistický úrad Slovenskej republiky",
  ),
  warmers: [],
};

export const skCompaniesRoute = () =>
  companyRoute({
    info: SK_COMPANIES_INFO,
    upstreamUrl: "https://api.statistics.sk/rpo/v1",
    summary: "Slovak companies: name search or IČO (RPO)",
    description:
      `A name search over RPO, Slovakia's register of legal persons (q, up to ${SK_MAX_MATCHES} matches), or one ` +
      "entity by its IČO (id, 6 to 8 digits): legal form, former names with their validity windows, main " +
      "activity, sector, source register and entry number, registered capital, objects of business. Searches " +
      "are asked live and cached for 12 hours; an entity not cached yet answers 404 (not charged) and is fetched " +
      "within about a minute. Company facts only: no statutory bodies, stakeholders or deposits.",
    query: lookupQuery({
      id: { describe: "One entity: its IČO, 6 to 8 digits", parse: (raw) => parseSkIco(raw) },
      qDescribe: "Name (or part of it)",
    }),
    sample: { q: "websupport" },
    answer: companyAnswer(SkExtrasShape, SkItemExtrasShape),
    pick: (query: { q?: string; id?: string }) =>
      query.id !== undefined ? { id: query.id } : { q: query.q as string },
    parseId: (raw) => parseSkIco(raw),
    what: (id) => `The entity with IČO ${id} in RPO`,
    lookup: lookupSkCompany,
    search: searchSkCompanies,
  });
