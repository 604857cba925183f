// Canada: federal acts and regulations from Justice Laws XML.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchCaAct } from "./job.ts";
import { caLegislationProduct } from "./route.ts";
import { CA_ACT_QUEUE, caIndexWarmer } from "./warmer.ts";

export const caLegislation: CountryModuleFactory = (config) => ({
  cc: "ca",
  products: [caLegislationProduct(config)],
  warmers: [caIndexWarmer],
  jobs: { [CA_ACT_QUEUE]: fetchCaAct },
});
