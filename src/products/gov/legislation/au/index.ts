// Australia: Commonwealth legislation from the Federal Register of Legislation.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchAuAct } from "./job.ts";
import { AU_ACT_QUEUE, auLegislationProduct } from "./route.ts";

export const auLegislation: CountryModuleFactory = (config) => ({
  cc: "au",
  products: [auLegislationProduct(config)],
  jobs: { [AU_ACT_QUEUE]: fetchAuAct },
});
