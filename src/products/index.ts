// Every product family paycall serves. A family is a folder of its own under products/.
import type { FamilyFactory } from "../catalog/product.ts";
import { doctorFamily } from "../features/doctor/index.ts";
import { domainFamily } from "../features/domain/sale.ts";
import { receiptsFamily } from "../features/receipts/index.ts";
import { courtsFamily } from "./courts/index.ts";
import { ecbFamily } from "./ecb/index.ts";
import { edgarFamily } from "./edgar/index.ts";
import { fredFamily } from "./fred/index.ts";
import { govCompaniesFamily } from "./gov/companies/index.ts";
import { govIndexFamily } from "./gov/index/index.ts";
import { govLegislationFamily } from "./gov/legislation/index.ts";
import { govOpenDataFamily } from "./gov/open-data/index.ts";
import { llmFamily } from "./llm/index.ts";
import { marketFamily } from "./market/index.ts";
import { mountainFamily } from "./mountain/index.ts";
import { npmFamily } from "./npm/index.ts";
import { nvdFamily } from "./nvd/index.ts";
import { ofacFamily } from "./ofac/index.ts";
import { openFdaFamily } from "./openfda/index.ts";
import { rdapFamily } from "./rdap/index.ts";
import { usptoFamily } from "./uspto/index.ts";
import { weatherFamily } from "./weather/index.ts";

/** The families under /v1/gov: the free index GET /v1/gov is generated from their declarations. */
const GOV_FAMILIES: FamilyFactory[] = [govLegislationFamily, govOpenDataFamily, govCompaniesFamily];

export const FAMILIES: FamilyFactory[] = [
  ecbFamily,
  fredFamily,
  marketFamily,
  edgarFamily,
  courtsFamily,
  mountainFamily,
  nvdFamily,
  openFdaFamily,
  ofacFamily,
  usptoFamily,
  npmFamily,
  weatherFamily,
  rdapFamily,
  ...GOV_FAMILIES,
  govIndexFamily(GOV_FAMILIES),
  llmFamily,
  doctorFamily,
  domainFamily,
  receiptsFamily,
];
