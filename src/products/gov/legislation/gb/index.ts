// United Kingdom: legislation.gov.uk.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchGbAct } from "./job.ts";
import { GB_ACT_QUEUE, gbLegislationProduct } from "./route.ts";
import { gbNewItemsWarmer } from "./warmer.ts";

export const gbLegislation: CountryModuleFactory = (config) => ({
  cc: "gb",
  products: [gbLegislationProduct(config)],
  warmers: [gbNewItemsWarmer],
  jobs: { [GB_ACT_QUEUE]: fetchGbAct },
});
