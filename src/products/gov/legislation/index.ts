// Legislation of ten jurisdictions: one family, one folder per country, recordings in one folder, and one
// preflight check per upstream (preflight.ts).
import path from "node:path";
import type { FamilyFactory } from "../../../catalog/product.ts";
import { assembleGovFamily, type CountryModuleFactory } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { atLegislation } from "./at/index.ts";
import { auLegislation } from "./au/index.ts";
import { caLegislation } from "./ca/index.ts";
import { chLegislation } from "./ch/index.ts";
import { deLegislation } from "./de/index.ts";
import { euLegislation } from "./eu/index.ts";
import { gbLegislation } from "./gb/index.ts";
import { jpLegislation } from "./jp/index.ts";
import { plLegislation } from "./pl/index.ts";
import { legislationPreflight } from "./preflight.ts";
import { usLegislation } from "./us/index.ts";

export const LEGISLATION_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

const COUNTRIES: CountryModuleFactory[] = [
  atLegislation,
  auLegislation,
  caLegislation,
  chLegislation,
  deLegislation,
  euLegislation,
  gbLegislation,
  jpLegislation,
  plLegislation,
  usLegislation,
];

const assembled = assembleGovFamily("gov-legislation", COUNTRIES, LEGISLATION_RECORDINGS_DIR, GOV_MIGRATIONS);

export const govLegislationFamily: FamilyFactory = (config) => ({
  ...assembled(config),
  preflight: legislationPreflight(),
});
