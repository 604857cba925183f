// GET /v1/gov/pl/companies/status (free): the name index, the bulletin, the last fetches and the lookup queue.
import { z } from "zod";
import { ok, product } from "../../../../catalog/product.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { RegisterStatusShape, registerStatus } from "../status-fields.ts";
import { BULLETIN_SPACING_MS, bulletinState } from "./bulletin.ts";
import { PL_INFO } from "./info.ts";
import { PL_INDEX } from "./name-index.ts";
import { KRS_UPSTREAM } from "./upstream.ts";

const PlStatusAnswer = z.object({
  ...RegisterStatusShape,
  indexSize: z.number().int().nonnegative().describe("KRS entities in our name index"),
  indexUpdatedAt: z.iso.datetime().nullable(),
  lastBulletinDay: z
    .string()
    .nullable()
    .describe("The last day of the KRS bulletin whose changes were queued"),
  lastBulletinNumbers: z.number().int().nonnegative().nullable().describe("KRS numbers that day listed"),
  spacing: z.object({
    requestMs: z.number().int().positive().describe("Least gap between two KRS requests, cluster-wide"),
    bulletinRefreshMs: z.number().int().positive().describe("Gap between two queued bulletin refreshes"),
  }),
});

export function plStatusProduct() {
  return product({
    sku: "gov.pl.companies.status",
    method: "GET",
    path: "/v1/gov/pl/companies/status",
    summary: "Polish company register: name index, bulletin and last fetches (free)",
    description:
      "Free. How many KRS entities our name index holds and when it last changed, the last day of the KRS " +
      "bulletin read, the last good and failed fetch, the request spacing and the lookup queue.",
    status: "live",
    tags: ["gov", "pl", "companies", "status"],
    price: "0",
    answer: PlStatusAnswer,
    async handle(_input, ctx) {
      const index = GovTitleIndex.of(ctx.store);
      const [common, indexSize, indexUpdatedAt, bulletin] = await Promise.all([
        registerStatus(ctx, PL_INFO, KRS_UPSTREAM),
        index.count(PL_INDEX),
        index.lastUpdated(PL_INDEX),
        bulletinState(ctx),
      ]);
      return ok({
        ...common,
        indexSize,
        indexUpdatedAt,
        lastBulletinDay: bulletin?.lastDay ?? null,
        lastBulletinNumbers: bulletin?.numbers ?? null,
        spacing: { requestMs: KRS_UPSTREAM.minIntervalMs as number, bulletinRefreshMs: BULLETIN_SPACING_MS },
      });
    },
  });
}
