// Every product family paycall serves. A family is a folder of its own under products/.
import type { FamilyFactory } from "../catalog/product.ts";
import { courtsFamily } from "./courts/index.ts";
import { domainFamily } from "./domain/sale.ts";
import { ecbFamily } from "./ecb/index.ts";
import { llmFamily } from "./llm/index.ts";

export const FAMILIES: FamilyFactory[] = [ecbFamily, courtsFamily, llmFamily, domainFamily];
