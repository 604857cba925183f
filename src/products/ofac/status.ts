// GET /v1/ofac/status (free): the lists on file, the warmer, and this node's in-memory screening index.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { ListInfo, listInfos } from "./answer.ts";
import { readVersion } from "./list-store.ts";
import { OFAC_WARM_EVERY_MS, OFAC_WARMER } from "./refresh.ts";
import type { OfacRuntime } from "./runtime.ts";
import { OFAC_SOURCE, OFAC_UPSTREAM } from "./upstream.ts";

export const OfacStatusAnswer = z.object({
  ok: z.literal(true),
  lists: z.array(ListInfo).describe("The list publications on file (empty before the first download)"),
  listVersion: z.string().nullable(),
  recordedSample: z.boolean().describe("True when the lists on file are recorded samples, not OFAC's"),
  index: z
    .object({
      loaded: z.boolean(),
      version: z.string().nullable().describe("The list version this node's index was built from"),
      current: z.boolean().describe("This node's index is built from the stored version"),
      entries: z.number().int().nonnegative(),
      names: z.number().int().nonnegative().describe("Primary names and aliases indexed"),
      dictionaryWords: z.number().int().nonnegative().describe("Distinct name parts in the prefilter"),
      approximateBytes: z
        .number()
        .int()
        .nonnegative()
        .describe(
          "Estimated memory of the index and its entries on this node (strings and per-object costs)",
        ),
      builtAt: z.iso.datetime().nullable(),
      buildMs: z.number().int().nonnegative().nullable(),
    })
    .describe("This node's in-memory screening index"),
  warmer: WarmerStatusAnswer.describe("The ofac.lists warmer: a conditional download every hour"),
  upstream: z.url().describe("Base URL of OFAC's Sanctions List Service this service downloads from"),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export function ofacStatus(runtime: OfacRuntime) {
  return product({
    sku: "ofac.status",
    method: "GET",
    path: "/v1/ofac/status",
    summary: "Status of the OFAC sanctions lists and the screening index (free)",
    description:
      "Free. The SDN and consolidated list publications on file (publish date, record count, when downloaded " +
      "and last checked), the warmer's last run, and this node's in-memory screening index: entries, names, " +
      "dictionary size, estimated memory and build time.",
    status: "live",
    tags: ["sanctions", "ofac", "status"],
    price: "0",
    answer: OfacStatusAnswer,
    source: OFAC_SOURCE,

    async handle(_input, ctx) {
      const [runs, version] = await Promise.all([
        warmerStatus(ctx, { name: OFAC_WARMER, everyMs: OFAC_WARM_EVERY_MS }),
        readVersion(ctx),
      ]);
      const loaded = version ? await runtime.current(ctx) : runtime.snapshot;
      return ok({
        ok: true as const,
        lists: listInfos(version?.body.lists ?? {}),
        listVersion: version?.body.version ?? null,
        recordedSample: version?.recordedSample ?? false,
        index: {
          loaded: loaded !== undefined,
          version: loaded?.version ?? null,
          current: loaded !== undefined && loaded.version === version?.body.version,
          entries: loaded?.index.entries.length ?? 0,
          names: loaded?.index.names.length ?? 0,
          dictionaryWords: loaded?.index.dictionarySize ?? 0,
          approximateBytes: loaded?.index.approximateBytes() ?? 0,
          builtAt: loaded?.builtAt ?? null,
          buildMs: loaded?.buildMs ?? null,
        },
        warmer: runs,
        upstream: ctx.upstreams.client(OFAC_UPSTREAM).baseUrl,
        mode: ctx.upstreams.mode,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
