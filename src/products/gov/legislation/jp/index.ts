// Japan: laws from the e-Gov law API v2.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { jpChangesWarmer } from "./changes.ts";
import { fetchJpLaw } from "./job.ts";
import { JP_ACT_QUEUE, jpLegislationProduct } from "./route.ts";

export const jpLegislation: CountryModuleFactory = (config) => ({
  cc: "jp",
  products: [jpLegislationProduct(config)],
  warmers: [jpChangesWarmer],
  jobs: { [JP_ACT_QUEUE]: fetchJpLaw },
});
