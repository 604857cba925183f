// Poland: acts of Dziennik Ustaw and Monitor Polski from the Sejm ELI API.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchPlAct } from "./job.ts";
import { PL_ACT_QUEUE, plLegislationProduct } from "./route.ts";

export const plLegislation: CountryModuleFactory = (config) => ({
  cc: "pl",
  products: [plLegislationProduct(config)],
  jobs: { [PL_ACT_QUEUE]: fetchPlAct },
});
