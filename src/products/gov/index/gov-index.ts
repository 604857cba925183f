// GET /v1/gov (free): every country route under /v1/gov with its state, price, upstream, licence and last
// refresh, generated from the gov products' own declarations (and the spec's routes not built yet).
import { z } from "zod";
import { describePrice, sampleUrl } from "../../../catalog/describe.ts";
import { type AnyProduct, type HandlerContext, ok, product } from "../../../catalog/product.ts";
import { readGovFetch } from "../shared/fetch-health.ts";
import type { GovProduct } from "../shared/gov-product.ts";
import { LicenceSchema } from "../shared/licences.ts";
import { PLANNED_ROUTES } from "./planned.ts";

const RouteState = z
  .enum(["live", "stub", "planned"])
  .describe(
    "live: its warmer or its last upstream fetch succeeded; stub: served, but nothing fetched successfully yet; " +
      "planned: not served yet",
  );

const GovRoute = z.object({
  path: z.string(),
  sku: z.string().nullable().describe("Product id; null for planned routes"),
  cc: z.string(),
  country: z.string(),
  family: z.enum(["legislation", "open_data", "companies", "accounts"]),
  state: RouteState,
  priceUsd: z.string().describe("Price per call in USD"),
  upstream: z.string(),
  licence: LicenceSchema.nullable(),
  lastRefresh: z.iso.datetime().nullable().describe("Last successful warmer run or upstream fetch"),
  freeSampleUrl: z.url().nullable(),
});

export const GovIndexAnswer = z.object({
  count: z.number().int().nonnegative(),
  states: z.object({ live: z.number().int(), stub: z.number().int(), planned: z.number().int() }),
  routes: z.array(GovRoute).describe("Sorted by country code, then family"),
  generatedAt: z.iso.datetime(),
});

type GovRouteBody = z.infer<typeof GovRoute>;

async function lastRefresh(ctx: HandlerContext, route: GovProduct): Promise<string | null> {
  const times = await Promise.all([
    ...route.gov.warmers.map(async (name) => (await ctx.store.warmerRuns.status(name)).lastSuccessAt),
    readGovFetch(ctx.store, route.sku).then((health) => health.lastOkAt),
  ]);
  const known = times.filter((t): t is string => t !== null).sort();
  return known.at(-1) ?? null;
}

export function govIndex(routes: () => GovProduct[]): AnyProduct {
  return product({
    sku: "gov.index",
    method: "GET",
    path: "/v1/gov",
    summary: "Index of the public-register routes by country (free)",
    description:
      "Free. Every country route under /v1/gov (legislation, open data, company registers, annual accounts) with " +
      "its state (live, stub or planned), price, upstream, licence, last refresh and free sample.",
    status: "live",
    tags: ["gov", "status"],
    price: "0",
    answer: GovIndexAnswer,

    async handle(_input, ctx) {
      const declared = routes();
      const served = await Promise.all(
        declared.map(async (route): Promise<GovRouteBody> => {
          const refreshed = await lastRefresh(ctx, route);
          return {
            path: route.path,
            sku: route.sku,
            cc: route.gov.cc,
            country: route.gov.country,
            family: route.gov.family,
            state: refreshed ? "live" : "stub",
            priceUsd: describePrice(route).priceUsd,
            upstream: route.gov.upstream,
            licence: route.gov.licence,
            lastRefresh: refreshed,
            freeSampleUrl: sampleUrl(ctx.config, route) ?? null,
          };
        }),
      );
      const paths = new Set(served.map((r) => r.path));
      const planned: GovRouteBody[] = PLANNED_ROUTES.filter((p) => !paths.has(p.path)).map((p) => ({
        path: p.path,
        sku: null,
        cc: p.cc,
        country: p.country,
        family: p.family,
        state: "planned",
        priceUsd: p.priceUsd,
        upstream: p.upstream,
        licence: null,
        lastRefresh: null,
        freeSampleUrl: null,
      }));
      const all = [...served, ...planned].sort(
        (a, b) =>
          a.cc.localeCompare(b.cc) || a.family.localeCompare(b.family) || a.path.localeCompare(b.path),
      );
      const count = (state: GovRouteBody["state"]) => all.filter((r) => r.state === state).length;
      return ok({
        count: all.length,
        states: { live: count("live"), stub: count("stub"), planned: count("planned") },
        routes: all,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
