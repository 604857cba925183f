// GET /v1/gov/ca/companies/status (free): which release of the open data the index holds, its rows and age,
// the import under way, the malformed records skipped (file and line), and the last good and failed download.
import { z } from "zod";
import { ok, product } from "../../../../catalog/product.ts";
import { BulkIndexStatus, readBulkIndexStatus } from "../../shared/bulk-index-status.ts";
import { readGovFetch } from "../../shared/fetch-health.ts";
import { CA_SKU } from "./import.ts";
import { CA_COLLECTION, caArchiveUrl } from "./upstream.ts";

const Timestamp = z.iso.datetime();

const CaStatusAnswer = z.object({
  ok: z.literal(true),
  mode: z.enum(["live", "replay"]),
  archive: z.url().describe("The weekly open data archive the index is built from"),
  index: BulkIndexStatus,
  lastOkAt: Timestamp.nullable(),
  lastErrorAt: Timestamp.nullable(),
  lastError: z.string().nullable(),
  generatedAt: Timestamp,
});

export function caStatusProduct() {
  return product({
    sku: "gov.ca.companies.status",
    method: "GET",
    path: "/v1/gov/ca/companies/status",
    summary: "Canadian federal corporations: index release, size and import progress (free)",
    description:
      "Free. Which weekly release of Corporations Canada's open data the index holds, how many corporations, " +
      "how old it is, the import under way (resumed after a restart), and the malformed records it skipped.",
    status: "live",
    tags: ["gov", "ca", "companies", "status"],
    price: "0",
    answer: CaStatusAnswer,
    async handle(_input, ctx) {
      const [index, health] = await Promise.all([
        readBulkIndexStatus(ctx.store, CA_COLLECTION),
        readGovFetch(ctx.store, CA_SKU),
      ]);
      return ok({
        ok: true as const,
        mode: ctx.upstreams.mode,
        archive: caArchiveUrl(ctx),
        index,
        ...health,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
