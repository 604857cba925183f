// European Union: EUR-Lex acts from Cellar, with our own title index.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchEuAct } from "./job.ts";
import { EU_ACT_QUEUE, EU_INDEX_QUEUE, euLegislationProduct } from "./route.ts";
import { buildEuIndex, euIndexWarmer } from "./warmer.ts";

export const euLegislation: CountryModuleFactory = (config) => ({
  cc: "eu",
  products: [euLegislationProduct(config)],
  warmers: [euIndexWarmer],
  jobs: {
    [EU_ACT_QUEUE]: fetchEuAct,
    [EU_INDEX_QUEUE]: async (_payload, ctx) => {
      await buildEuIndex(ctx);
    },
  },
});
