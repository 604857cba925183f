// Switzerland: federal law from Fedlex, with our own title index.
import { jobKind } from "../../../../catalog/product.ts";
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { fetchChAct } from "./job.ts";
import { CH_ACT_QUEUE, CH_INDEX_QUEUE, chLegislationProduct } from "./route.ts";
import { buildChIndex, chIndexWarmer } from "./warmer.ts";

export const chLegislation: CountryModuleFactory = (config) => ({
  cc: "ch",
  products: [chLegislationProduct(config)],
  warmers: [chIndexWarmer],
  jobs: {
    [CH_ACT_QUEUE]: fetchChAct,
    // A whole index build, not one item: it waits with the warmers rather than in a buyer's fetch slot.
    [CH_INDEX_QUEUE]: jobKind({ lane: "warm" }, async (_payload, ctx) => {
      await buildChIndex(ctx);
    }),
  },
});
