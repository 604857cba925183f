// Legislation of ten jurisdictions (issue 12): one family, one folder per country, recordings in one folder.
import path from "node:path";
import { assembleGovFamily, type CountryModuleFactory } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";

export const LEGISLATION_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

const COUNTRIES: CountryModuleFactory[] = [];

export const govLegislationFamily = assembleGovFamily(
  "gov-legislation",
  COUNTRIES,
  LEGISLATION_RECORDINGS_DIR,
  GOV_MIGRATIONS,
);
