// GET /v1/gov/ch/companies/status (free): whether the Zefix credentials are set, the last fetches, the queue.
import { z } from "zod";
import { ok, product } from "../../../../catalog/product.ts";
import { RegisterStatusShape, registerStatus } from "../status-fields.ts";
import { CH_INFO } from "./info.ts";
import { ZEFIX_PASSWORD_SETTING, ZEFIX_UPSTREAM, ZEFIX_USER_SETTING } from "./upstream.ts";

const ChStatusAnswer = z.object({
  ...RegisterStatusShape,
  configured: z
    .boolean()
    .describe(`Whether ${ZEFIX_USER_SETTING} and ${ZEFIX_PASSWORD_SETTING} are set (never shown)`),
  minIntervalMs: z.number().int().positive().describe("Spacing of Zefix requests across every node"),
});

/** `configured`: whether the credentials were set when the family was built. */
export function chStatusProduct(configured: boolean) {
  return product({
    sku: "gov.ch.companies.status",
    method: "GET",
    path: "/v1/gov/ch/companies/status",
    summary: "Swiss company register: credentials, last fetches and queue (free)",
    description:
      "Free. Whether the Zefix PublicREST credentials are configured, the last good and failed fetch, the " +
      "request spacing and the fetch-on-miss queue.",
    status: "live",
    tags: ["gov", "ch", "companies", "status"],
    price: "0",
    answer: ChStatusAnswer,
    async handle(_input, ctx) {
      return ok({
        ...(await registerStatus(ctx, CH_INFO, ZEFIX_UPSTREAM)),
        configured,
        minIntervalMs: ZEFIX_UPSTREAM.minIntervalMs as number,
      });
    },
  });
}
