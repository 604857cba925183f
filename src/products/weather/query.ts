// Query parameters of the weather routes, checked before payment: coordinates inside the US states and
// territories (NWS covers nothing else), NWS grid cells, station ids and state names.
import { z } from "zod";
import { REGIONS, regionByCode, regionByName, regionsAt } from "./regions.ts";

/** A number parameter: an empty value is refused rather than read as 0. */
function numberParam(message: string, limit: (n: z.ZodCoercedNumber) => z.ZodCoercedNumber) {
  return z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? Number.NaN : value),
    limit(z.coerce.number({ error: message })),
  );
}

const LAT_MESSAGE = "lat must be a latitude in degrees north, e.g. 39.7456";
const LON_MESSAGE = "lon must be a longitude in degrees east (negative in the Americas), e.g. -97.0892";

const lat = numberParam(LAT_MESSAGE, (n) => n.min(-90, LAT_MESSAGE).max(90, LAT_MESSAGE)).describe(
  "Latitude, degrees north (WGS 84); US states and territories only",
);
const lon = numberParam(LON_MESSAGE, (n) => n.min(-180, LON_MESSAGE).max(180, LON_MESSAGE)).describe(
  "Longitude, degrees east (WGS 84; negative west of Greenwich); US states and territories only",
);

const GRID_MESSAGE = "must be a whole grid index from 0 to 999, as /v1/weather/point gives it";
const wfo = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{3}$/, "wfo must be a three-letter NWS forecast office id, e.g. TOP")
  .describe("NWS forecast office (gridId) of the grid cell, e.g. TOP");
const gridX = numberParam(`gridX ${GRID_MESSAGE}`, (n) =>
  n.int(`gridX ${GRID_MESSAGE}`).min(0, `gridX ${GRID_MESSAGE}`).max(999, `gridX ${GRID_MESSAGE}`),
).describe("Grid column of the cell in the office's grid");
const gridY = numberParam(`gridY ${GRID_MESSAGE}`, (n) =>
  n.int(`gridY ${GRID_MESSAGE}`).min(0, `gridY ${GRID_MESSAGE}`).max(999, `gridY ${GRID_MESSAGE}`),
).describe("Grid row of the cell in the office's grid");

const STATION_ID = /^[A-Z0-9]{3,6}$/;
const stationId = z
  .string()
  .trim()
  .toUpperCase()
  .regex(STATION_ID, "stationId must be an NWS observation station id of 3 to 6 letters or digits, e.g. KATT")
  .describe("NWS observation station id (ICAO for airports), e.g. KATT");

type Issues = z.RefinementCtx;

/** lat and lon together, inside a US state's or territory's box; the parameter named is the one at fault. */
function checkCoordinates(query: { lat?: number; lon?: number }, ctx: Issues): void {
  if (query.lat === undefined && query.lon === undefined) return;
  if (query.lat === undefined) {
    ctx.addIssue({ code: "custom", path: ["lat"], message: "give lat together with lon" });
    return;
  }
  if (query.lon === undefined) {
    ctx.addIssue({ code: "custom", path: ["lon"], message: "give lon together with lat" });
    return;
  }
  if (regionsAt(query.lat, query.lon).length > 0) return;
  const lonInside = REGIONS.some((r) =>
    r.boxes.some(([w, , e]) => (query.lon as number) >= w && (query.lon as number) <= e),
  );
  ctx.addIssue({
    code: "custom",
    path: [lonInside ? "lat" : "lon"],
    message: `${query.lat},${query.lon} is outside the US states and territories; NWS forecasts only for those`,
  });
}

export const PointQuery = z.object({ lat, lon }).superRefine((query, ctx) => checkCoordinates(query, ctx));

export const GridQuery = z
  .object({
    lat: lat.optional(),
    lon: lon.optional(),
    wfo: wfo.optional(),
    gridX: gridX.optional(),
    gridY: gridY.optional(),
  })
  .superRefine((query, ctx) => {
    const byPoint = query.lat !== undefined || query.lon !== undefined;
    const byGrid = query.wfo !== undefined || query.gridX !== undefined || query.gridY !== undefined;
    if (byPoint && byGrid) {
      ctx.addIssue({ code: "custom", path: ["wfo"], message: "give lat+lon or wfo+gridX+gridY, not both" });
      return;
    }
    if (!byPoint && !byGrid) {
      ctx.addIssue({ code: "custom", path: ["lat"], message: "give lat+lon, or wfo+gridX+gridY" });
      return;
    }
    if (byPoint) return checkCoordinates(query, ctx);
    for (const name of ["wfo", "gridX", "gridY"] as const) {
      if (query[name] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `give ${name} together with wfo, gridX and gridY`,
        });
        return;
      }
    }
  });

export type GridInput = z.output<typeof GridQuery>;

export const ObservationQuery = z
  .object({ stationId: stationId.optional(), lat: lat.optional(), lon: lon.optional() })
  .superRefine((query, ctx) => {
    const byPoint = query.lat !== undefined || query.lon !== undefined;
    if (query.stationId !== undefined && byPoint) {
      ctx.addIssue({ code: "custom", path: ["stationId"], message: "give stationId or lat+lon, not both" });
      return;
    }
    if (query.stationId === undefined && !byPoint) {
      ctx.addIssue({
        code: "custom",
        path: ["stationId"],
        message: "give stationId, or lat+lon for the nearest station",
      });
      return;
    }
    checkCoordinates(query, ctx);
  });

export const AlertsQuery = z.object({
  state: z
    .string({ error: "state is required: a full English state or territory name, e.g. Colorado" })
    .transform((raw, ctx) => {
      const region = regionByName(raw);
      if (region) return region;
      const byCode = /^[A-Za-z]{2}$/.test(raw.trim()) ? regionByCode(raw.trim()) : undefined;
      ctx.addIssue({
        code: "custom",
        message: byCode
          ? `state takes the full name: ${byCode.name}`
          : "state must be the full English name of a US state or territory, e.g. Colorado or Puerto Rico",
      });
      return z.NEVER;
    })
    .describe("Full English name of a US state, DC or territory, any case: Colorado, new york, Puerto Rico"),
});

/** NWS takes at most 4 decimals on /points (more gives a redirect); the cache key uses the same rounding. */
export function roundCoordinate(value: number): string {
  return (Math.round(value * 10_000) / 10_000).toString();
}
