// Germany: federal law from gesetze-im-internet.de's table of contents, indexed by us.
import { jobKind } from "../../../../catalog/product.ts";
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { DE_ACT_QUEUE, fetchDeAct } from "./job.ts";
import { DE_INDEX_QUEUE, deLegislationProduct } from "./route.ts";
import { buildDeIndex, deIndexWarmer } from "./warmer.ts";

export const deLegislation: CountryModuleFactory = (config) => ({
  cc: "de",
  products: [deLegislationProduct(config)],
  warmers: [deIndexWarmer],
  jobs: {
    [DE_ACT_QUEUE]: fetchDeAct,
    // A whole index build, not one item: it waits with the warmers rather than in a buyer's fetch slot.
    [DE_INDEX_QUEUE]: jobKind({ lane: "warm" }, async (_payload, ctx) => {
      await buildDeIndex(ctx);
    }),
  },
});
