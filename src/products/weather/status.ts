// Free routes of the weather family: /v1/weather/noaa/status (warmer, cache, upstream), /coverage (the regions
// served and what is cached per forecast office) and /schema (the field dictionary).
import { z } from "zod";
import { schemaRoute } from "../../catalog/field-dictionary.ts";
import { type AnyProduct, ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { hasPlaceholderContact } from "../../preflight/live-requirements.ts";
import { FetchHealthAnswer, readFetchHealth } from "../../upstream/live-cache.ts";
import { WEATHER_CACHE } from "./lookup.ts";
import { REGIONS } from "./regions.ts";
import type { WeatherSettings } from "./settings.ts";
import { NWS_SOURCE, NWS_UPSTREAM } from "./upstream.ts";
import { weatherWarmer } from "./warmer.ts";

const KINDS = ["point", "forecast", "hourly", "stations", "observation", "alerts"] as const;

export const WeatherStatusAnswer = z.object({
  ok: z.literal(true),
  warmer: WarmerStatusAnswer.describe("The weather.forecasts warmer (every 15 minutes)"),
  cache: z
    .object(Object.fromEntries(KINDS.map((k) => [k, z.number().int().nonnegative()])))
    .describe(
      "Documents cached per kind: points, 12-hour and hourly forecasts by grid cell, station lists, observations, alert lists",
    ),
  warmPoints: z.number().int().nonnegative(),
  upstreamFetches: FetchHealthAnswer,
  userAgentHasContact: z.boolean().describe("NWS asks for a contact in the User-Agent (CONTACT_EMAIL)"),
  upstream: z.url(),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export const WeatherCoverageAnswer = z.object({
  ok: z.literal(true),
  regions: z
    .array(
      z.object({
        code: z.string(),
        name: z.string().describe("The name /v1/weather/alerts-by-state takes"),
        kind: z.enum(["state", "district", "territory"]),
        boxes: z.array(z.array(z.number())).describe("Bounding boxes [west, south, east, north], degrees"),
        alertsCached: z.boolean(),
      }),
    )
    .describe("Where lat/lon are accepted (outside every box: 400)"),
  offices: z
    .array(
      z.object({
        wfo: z.string(),
        cells: z.array(
          z.object({
            gridX: z.number().int(),
            gridY: z.number().int(),
            forecast: z.boolean(),
            hourly: z.boolean(),
          }),
        ),
      }),
    )
    .describe("Grid cells with a cached forecast, per forecast office"),
  stations: z.array(z.string()).describe("Stations with a cached latest observation"),
  points: z.number().int().nonnegative().describe("Grid points cached"),
  generatedAt: z.iso.datetime(),
});

async function keysByKind(ctx: Parameters<AnyProduct["handle"]>[1]) {
  const all = await ctx.store.cache.keys(WEATHER_CACHE);
  const byKind = new Map<string, string[]>(KINDS.map((k) => [k, []]));
  for (const key of all) {
    const [kind, rest] = key.split(/:(.*)/s) as [string, string];
    byKind.get(kind)?.push(rest);
  }
  return byKind;
}

export function weatherStatus(settings: WeatherSettings) {
  const warmer = weatherWarmer(settings);
  return product({
    sku: "weather.noaa.status",
    method: "GET",
    path: "/v1/weather/noaa/status",
    summary: "Status of the NWS weather cache and warmer (free)",
    description:
      "Free. The weather warmer's last run and error, cached documents per kind, and the NWS upstream in use.",
    status: "live",
    tags: ["weather", "nws", "status"],
    price: "0",
    answer: WeatherStatusAnswer,
    source: NWS_SOURCE,
    async handle(_input, ctx) {
      const [runs, byKind, fetches] = await Promise.all([
        warmerStatus(ctx, warmer),
        keysByKind(ctx),
        readFetchHealth(ctx, WEATHER_CACHE),
      ]);
      return ok({
        ok: true as const,
        warmer: runs,
        cache: Object.fromEntries(KINDS.map((k) => [k, byKind.get(k)?.length ?? 0])) as Record<
          (typeof KINDS)[number],
          number
        >,
        warmPoints: settings.warmPoints.length,
        upstreamFetches: fetches,
        userAgentHasContact: !hasPlaceholderContact(ctx.upstreams.userAgent),
        upstream: ctx.upstreams.client(NWS_UPSTREAM).baseUrl,
        mode: ctx.upstreams.mode,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}

export const weatherCoverage = product({
  sku: "weather.noaa.coverage",
  method: "GET",
  path: "/v1/weather/noaa/coverage",
  summary:
    "Coverage tree of the NWS weather routes: regions served, cached offices, cells and stations (free)",
  description:
    "Free. The US states, DC and territories the weather routes accept (with their bounding boxes), and what is " +
    "cached now: grid cells per forecast office, stations with an observation, states with an alert list.",
  status: "live",
  tags: ["weather", "nws", "coverage"],
  price: "0",
  answer: WeatherCoverageAnswer,
  source: NWS_SOURCE,
  async handle(_input, ctx) {
    const byKind = await keysByKind(ctx);
    const cells = new Map<string, { gridX: number; gridY: number; forecast: boolean; hourly: boolean }>();
    for (const kind of ["forecast", "hourly"] as const) {
      for (const rest of byKind.get(kind) ?? []) {
        const match = rest.match(/^([A-Z]{3})\/(\d+),(\d+)$/);
        if (!match) continue;
        const id = rest;
        const cell = cells.get(id) ?? {
          gridX: Number(match[2]),
          gridY: Number(match[3]),
          forecast: false,
          hourly: false,
        };
        cell[kind] = true;
        cells.set(id, cell);
      }
    }
    const offices = new Map<
      string,
      Array<{ gridX: number; gridY: number; forecast: boolean; hourly: boolean }>
    >();
    for (const [id, cell] of cells) {
      const wfo = id.slice(0, 3);
      offices.set(wfo, [...(offices.get(wfo) ?? []), cell]);
    }
    const alertStates = new Set(byKind.get("alerts"));
    return ok({
      ok: true as const,
      regions: REGIONS.map((r) => ({ ...r, alertsCached: alertStates.has(r.code) })),
      offices: [...offices.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([wfo, list]) => ({ wfo, cells: list })),
      stations: (byKind.get("observation") ?? []).sort(),
      points: byKind.get("point")?.length ?? 0,
      generatedAt: new Date().toISOString(),
    });
  },
});

export function weatherSchema(products: () => AnyProduct[]) {
  return schemaRoute({
    sku: "weather.noaa.schema",
    path: "/v1/weather/noaa/schema",
    family: "weather",
    title: "NWS weather",
    products,
    source: NWS_SOURCE,
    tags: ["weather", "nws"],
  });
}
