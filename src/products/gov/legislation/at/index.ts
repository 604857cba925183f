// Austria: consolidated federal law from RIS.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchAtAct } from "./job.ts";
import { AT_ACT_QUEUE, atLegislationProduct } from "./route.ts";
import { atHistoryWarmer } from "./warmer.ts";

export const atLegislation: CountryModuleFactory = (config) => ({
  cc: "at",
  products: [atLegislationProduct(config)],
  warmers: [atHistoryWarmer],
  jobs: { [AT_ACT_QUEUE]: fetchAtAct },
});
