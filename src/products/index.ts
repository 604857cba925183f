// Every product family paycall serves. A family is a folder of its own under products/.
import type { FamilyFactory } from "../catalog/product.ts";
import { courtsFamily } from "./courts/index.ts";
import { doctorFamily } from "./doctor/index.ts";
import { domainFamily } from "./domain/sale.ts";
import { ecbFamily } from "./ecb/index.ts";
import { edgarFamily } from "./edgar/index.ts";
import { fredFamily } from "./fred/index.ts";
import { llmFamily } from "./llm/index.ts";
import { marketFamily } from "./market/index.ts";
import { mountainFamily } from "./mountain/index.ts";
import { nvdFamily } from "./nvd/index.ts";

export const FAMILIES: FamilyFactory[] = [
  ecbFamily,
  fredFamily,
  marketFamily,
  edgarFamily,
  courtsFamily,
  mountainFamily,
  nvdFamily,
  llmFamily,
  doctorFamily,
  domainFamily,
];
