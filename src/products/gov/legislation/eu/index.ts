// European Union: EUR-Lex acts from Cellar, with our own title index.
import { jobKind } from "../../../../catalog/product.ts";
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
    // A whole index build, not one item: it waits with the warmers rather than in a buyer's fetch slot.
    [EU_INDEX_QUEUE]: jobKind({ lane: "warm" }, async (_payload, ctx) => {
      await buildEuIndex(ctx);
    }),
  },
});
