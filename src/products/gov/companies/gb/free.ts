// The free UK register endpoints: what the cache holds (coverage) and whether the route can fetch (status).
import { z } from "zod";
import { ok, product } from "../../../../catalog/product.ts";
import { readGovFetch } from "../../shared/fetch-health.ts";
import { govSku } from "../../shared/gov-product.ts";
import { cacheFamilyOf, companyQueue } from "../register.ts";
import { GB_INFO } from "./info.ts";
import {
  CH_BUDGET,
  CH_KEY_SETTING,
  CH_MIN_INTERVAL_MS,
  CH_REQUESTS_PER_WINDOW,
  CH_WINDOW_SEC,
  companiesHouseKey,
  GB_UPSTREAM,
} from "./upstream.ts";

const Timestamp = z.iso.datetime();
const QueueCounts = z.object({
  queued: z.number().int().nonnegative(),
  running: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  dead: z.number().int().nonnegative(),
});

export const GbCoverageAnswer = z.object({
  ok: z.literal(true),
  companies: z
    .number()
    .int()
    .nonnegative()
    .describe("Company numbers cached (including numbers found not to exist)"),
  searches: z.number().int().nonnegative().describe("Name searches cached (12 hours each)"),
  lookups: QueueCounts.describe("Fetch-on-miss jobs for company numbers"),
  nameIndex: z
    .literal(false)
    .describe("No local name index from the monthly snapshot: names are searched live"),
  generatedAt: Timestamp,
});

export const GbStatusAnswer = z.object({
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
  generatedAt: Timestamp,
});

const tags = ["gov", "gb", "companies", "status"];

export function gbCoverageProduct() {
  return product({
    sku: "gov.gb.companies.coverage",
    method: "GET",
    path: "/v1/gov/gb/companies/coverage",
    summary: "UK company register: what is cached (free)",
    description: "Free. How many UK companies and name searches are cached, and the fetch-on-miss queue.",
    status: "live",
    tags,
    price: "0",
    answer: GbCoverageAnswer,
    async handle(_input, ctx) {
      const family = cacheFamilyOf(GB_INFO);
      const [companies, searches, lookups] = await Promise.all([
        ctx.store.cache.count(family),
        ctx.store.cache.count(`${family}-search`),
        ctx.store.jobs.counts(companyQueue(GB_INFO)),
      ]);
      return ok({
        ok: true as const,
        companies,
        searches,
        lookups,
        nameIndex: false as const,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}

export function gbStatusProduct() {
  return product({
    sku: "gov.gb.companies.status",
    method: "GET",
    path: "/v1/gov/gb/companies/status",
    summary: "UK company register: key, last fetches and rate limit (free)",
    description:
      "Free. Whether the Companies House key is configured, the last good and failed fetch, the shared rate " +
      "limit and request spacing, and the fetch-on-miss queue.",
    status: "live",
    tags,
    price: "0",
    answer: GbStatusAnswer,
    async handle(_input, ctx) {
      const [health, lookups] = await Promise.all([
        readGovFetch(ctx.store, govSku("gb", "companies")),
        ctx.store.jobs.counts(companyQueue(GB_INFO)),
      ]);
      return ok({
        ok: true as const,
        configured: companiesHouseKey(ctx.config.env) !== undefined,
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
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
