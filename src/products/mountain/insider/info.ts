// GET /v1/insider-info: one insider tip by id, or every current tip.
import { z } from "zod";
import { notFound, ok, product } from "../../../catalog/product.ts";
import { insiderNotice } from "../shared/notice.ts";
import { slugParam } from "../shared/params.ts";
import { INSIDER_PRICE, readTips, TipsAnswer } from "./tips.ts";

const InsiderInfoQuery = z.object({
  id: slugParam("a tip id", "a tip id")
    .optional()
    .describe("One tip's id (from /v1/trip/map); omit for every current tip"),
});

export const insiderInfo = product({
  sku: "insider.info",
  method: "GET",
  path: "/v1/insider-info",
  summary: "Insider tips for ski and mountain travel, in the local language",
  description:
    "Curated insider tips (early lift openings, food, crowds, transport) with resort, country and date, as plain " +
    "text in the local language. id returns one tip (also an expired one); without id, every current tip.",
  status: "live",
  tags: ["insider", "ski", "mountain"],
  price: INSIDER_PRICE,
  query: InsiderInfoQuery,
  answer: TipsAnswer,
  sample: { id: "sample-tip-alpenrose-early-opening" },

  async check({ query }, ctx) {
    if (!query.id) return undefined;
    const { rows } = await readTips(ctx, { id: query.id, currentOnly: false });
    return rows.length ? undefined : notFound(`No insider tip "${query.id}" is on file.`);
  },

  async handle({ query }, ctx) {
    const { rows, tips, updatedAt, sample } = await readTips(ctx, { id: query.id, currentOnly: !query.id });
    if (query.id && rows.length === 0) return notFound(`No insider tip "${query.id}" is on file.`);
    return ok({
      count: tips.length,
      tips,
      updatedAt,
      generatedAt: new Date().toISOString(),
      notice: insiderNotice(sample),
    });
  },
});
