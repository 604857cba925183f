// Germany: federal law from gesetze-im-internet.de's table of contents, indexed by us.
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
    [DE_INDEX_QUEUE]: async (_payload, ctx) => {
      await buildDeIndex(ctx);
    },
  },
});
