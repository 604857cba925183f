// United States: federal regulations from the eCFR, one section at a time.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchUsSection } from "./job.ts";
import { US_ACT_QUEUE, usLegislationProduct } from "./route.ts";

export const usLegislation: CountryModuleFactory = (config) => ({
  cc: "us",
  products: [usLegislationProduct(config)],
  jobs: { [US_ACT_QUEUE]: fetchUsSection },
});
