// GET /v1/insider-info/early-openings: every current tip about lifts or slopes opening early.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { insiderNotice } from "../shared/notice.ts";
import { countryParam } from "../shared/params.ts";
import { EARLY_OPENING, INSIDER_PRICE, readTips, TipsAnswer } from "./tips.ts";

export const insiderEarlyOpenings = product({
  sku: "insider.early-openings",
  method: "GET",
  path: "/v1/insider-info/early-openings",
  summary: "Current insider tips about early lift and slope openings",
  description:
    "Every current insider tip of kind early-opening (lifts or slopes opening before the posted time or season), " +
    "with resort, country and date, as plain text in the local language. country narrows them to one country.",
  status: "live",
  tags: ["insider", "ski", "mountain"],
  price: INSIDER_PRICE,
  query: z.object({ country: countryParam.optional() }),
  answer: TipsAnswer,

  async handle({ query }, ctx) {
    const { tips, updatedAt, sample } = await readTips(ctx, {
      kind: EARLY_OPENING,
      country: query.country,
      currentOnly: true,
    });
    return ok({
      count: tips.length,
      tips,
      updatedAt,
      generatedAt: new Date().toISOString(),
      notice: insiderNotice(sample),
    });
  },
});
