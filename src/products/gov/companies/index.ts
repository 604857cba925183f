// Company registers: one family, one folder per country, recordings in one folder with country
// prefixes. A country joins by adding its CountryModuleFactory to COMPANY_COUNTRIES (and, if it has an
// upstream worth probing, a check to preflight.ts).
import type { FamilyFactory } from "../../../catalog/product.ts";
import { assembleGovFamily, type CountryModuleFactory } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { brCompanies } from "./br/index.ts";
import { caCompanies } from "./ca/index.ts";
import { chCompanies } from "./ch/index.ts";
import { czCompanies } from "./cz/index.ts";
import { frCompanies } from "./fr/index.ts";
import { gbCompanies } from "./gb/index.ts";
import { COMPANIES_RECORDINGS_DIR } from "./paths.ts";
import { plCompanies } from "./pl/index.ts";
import { companiesPreflight } from "./preflight.ts";
import { skCompanies } from "./sk/index.ts";

const COMPANY_COUNTRIES: CountryModuleFactory[] = [
  frCompanies,
  czCompanies,
  gbCompanies,
  skCompanies,
  brCompanies,
  plCompanies,
  chCompanies,
  caCompanies,
];

const assembled = assembleGovFamily(
  "gov-companies",
  COMPANY_COUNTRIES,
  COMPANIES_RECORDINGS_DIR,
  GOV_MIGRATIONS,
);

export const govCompaniesFamily: FamilyFactory = (config) => ({
  ...assembled(config),
  preflight: companiesPreflight(config),
});
