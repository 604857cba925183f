// The free UK register endpoints: what the cache and the snapshot name index hold (coverage) and whether the
// route can fetch (status: the key, the API's rate limit, the snapshot's release, size, age and import).
import { z } from "zod";
import { ok, product } from "../../../../catalog/product.ts";
import { BulkIndexStatus, readBulkIndexStatus } from "../../shared/bulk-index-status.ts";
import { readGovFetch } from "../../shared/fetch-health.ts";
import { govSku } from "../../shared/gov-product.ts";
import { cacheFamilyOf, companyQueue } from "../register.ts";
import { GB_INFO } from "./info.ts";
import { SNAPSHOT_COLLECTION } from "./snapshot.ts";
import { GB_SNAPSHOT_HEALTH } from "./snapshot-warmer.ts";
import {
  CH_BUDGET,
  CH_KEY_SETTING,
  CH_MIN_INTERVAL_MS,
  CH_REQUESTS_PER_WINDOW,
  CH_WINDOW_SEC,
  GB_UPSTREAM,
} from "./upstream.ts";

const Timestamp = z.iso.datetime();
const QueueCounts = z.object({
  queued: z.number().int().nonnegative(),
  running: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  dead: z.number().int().nonnegative(),
});

const GbCoverageAnswer = z.object({
  ok: z.literal(true),
  companies: z
    .number()
    .int()
    .nonnegative()
    .describe("Company numbers cached (including numbers found not to exist)"),
  searches: z.number().int().nonnegative().describe("Name searches cached (12 hours each)"),
  lookups: QueueCounts.describe("Fetch-on-miss jobs for company numbers"),
  nameIndex: BulkIndexStatus.describe(
    "Our name index of the monthly snapshot: while loaded, names are searched in it (no API call); " +
      "otherwise they are asked of the API live",
  ),
  generatedAt: Timestamp,
});

const GbStatusAnswer = z.object({
  ok: z.literal(true),
  configured: z.boolean().describe(`Whether ${CH_KEY_SETTING} is set (the key is never shown)`),
  mode: z.enum(["live", "replay"]),
  upstream: z.url(),
  lastOkAt: Timestamp.nullable(),
  lastErrorAt: Timestamp.nullable(),
  lastError: z.string().nullable(),
  rateLimit: z.object({
    requestsPerWindow: z.number().int().positive(),
    windowSec: z.number().int().positive(),
    minIntervalMs: z.number().int().positive().describe("Spacing of requests across every node"),
    budget: z.string(),
  }),
  lookups: QueueCounts,
  snapshot: BulkIndexStatus.extend({
    lastOkAt: Timestamp.nullable(),
    lastErrorAt: Timestamp.nullable(),
    lastError: z.string().nullable(),
  }).describe("The monthly snapshot name index and its last good and failed download"),
  generatedAt: Timestamp,
});

const tags = ["gov", "gb", "companies", "status"];

export function gbCoverageProduct() {
  return product({
    sku: "gov.gb.companies.coverage",
    method: "GET",
    path: "/v1/gov/gb/companies/coverage",
    summary: "UK company register: what is cached (free)",
    description:
      "Free. How many UK companies and name searches are cached, the fetch-on-miss queue, and the monthly " +
      "snapshot name index (release, rows, age).",
    status: "live",
    tags,
    price: "0",
    answer: GbCoverageAnswer,
    async handle(_input, ctx) {
      const family = cacheFamilyOf(GB_INFO);
      const [companies, searches, lookups, nameIndex] = await Promise.all([
        ctx.store.cache.count(family),
        ctx.store.cache.count(`${family}-search`),
        ctx.store.jobs.counts(companyQueue(GB_INFO)),
        readBulkIndexStatus(ctx.store, SNAPSHOT_COLLECTION),
      ]);
      return ok({
        ok: true as const,
        companies,
        searches,
        lookups,
        nameIndex,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}

/** `configured`: whether the key was set when the family was built. */
export function gbStatusProduct(configured: boolean) {
  return product({
    sku: "gov.gb.companies.status",
    method: "GET",
    path: "/v1/gov/gb/companies/status",
    summary: "UK company register: key, last fetches and rate limit (free)",
    description:
      "Free. Whether the Companies House key is configured, the last good and failed fetch, the shared rate " +
      "limit and request spacing, the fetch-on-miss queue, and the monthly snapshot name index (release, rows, " +
      "age, import under way, malformed rows).",
    status: "live",
    tags,
    price: "0",
    answer: GbStatusAnswer,
    async handle(_input, ctx) {
      const [health, lookups, snapshot, snapshotHealth] = await Promise.all([
        readGovFetch(ctx.store, govSku("gb", "companies")),
        ctx.store.jobs.counts(companyQueue(GB_INFO)),
        readBulkIndexStatus(ctx.store, SNAPSHOT_COLLECTION),
        readGovFetch(ctx.store, GB_SNAPSHOT_HEALTH),
      ]);
      return ok({
        ok: true as const,
        configured,
        mode: ctx.upstreams.mode,
        upstream: ctx.upstreams.client(GB_UPSTREAM).baseUrl,
        ...health,
        rateLimit: {
          requestsPerWindow: CH_REQUESTS_PER_WINDOW,
          windowSec: CH_WINDOW_SEC,
          minIntervalMs: CH_MIN_INTERVAL_MS,
          budget: CH_BUDGET,
        },
        lookups,
        snapshot: { ...snapshot, ...snapshotHealth },
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
