// The Overpass API: OpenStreetMap food and drink places (amenity restaurant, cafe, bar, pub, fast_food) in
// an area's bounding box or a ring around a resort, one Overpass QL query per target, sent as GET ?data=.
import type { HandlerContext } from "../../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../../upstream/client.ts";
import { PLACE_TYPES } from "../shared/params.ts";

export const OVERPASS_UPSTREAM: UpstreamSpec = {
  name: "overpass",
  // A self-hosted instance is recommended for a public service; OVERPASS_BASE_URL points there.
  defaultBaseUrl: "https://overpass-api.de/api",
  // The public instances give each IP about two slots: one request at a time, at least a second apart.
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 90_000,
  retries: 2,
  maxRetryAfterMs: 120_000,
};

export const INTERPRETER_PATH = "/interpreter";
/** The server-side timeout of each query, in seconds. */
export const QUERY_TIMEOUT_SEC = 60;

const AMENITY_FILTER = `nwr["amenity"~"^(${PLACE_TYPES.join("|")})$"]`;

/** Fixed formatting, so the same target always gives the same query text (recordings match on it). */
function coordinate(value: number): string {
  return String(Number(value.toFixed(6)));
}

export interface BBox {
  south: number;
  west: number;
  north: number;
  east: number;
}

export function bboxQuery(b: BBox): string {
  const box = [b.south, b.west, b.north, b.east].map(coordinate).join(",");
  return `[out:json][timeout:${QUERY_TIMEOUT_SEC}];${AMENITY_FILTER}(${box});out center tags;`;
}

export function ringQuery(lat: number, lon: number, radiusKm: number): string {
  const metres = Math.round(radiusKm * 1000);
  return `[out:json][timeout:${QUERY_TIMEOUT_SEC}];${AMENITY_FILTER}(around:${metres},${coordinate(lat)},${coordinate(lon)});out center tags;`;
}

export interface OverpassElement {
  type: string;
  id: number;
  lat?: number;
  lon?: number;
  center?: { lat?: number; lon?: number };
  tags?: Record<string, string>;
}

export interface OverpassAnswer {
  elements: OverpassElement[];
  /** osm3s.timestamp_osm_base: how current the instance's OSM data is. */
  osmBase: string | null;
  url: string;
  recordedSample: boolean;
}

/** Overpass reports timeouts and memory overruns inside an HTTP 200, in `remark`: any remark is a failure. */
export function parseOverpassBody(body: string, url: string): Omit<OverpassAnswer, "url" | "recordedSample"> {
  const start = body.trimStart();
  if (!start.startsWith("{")) {
    const snippet = start.slice(0, 160).replace(/\s+/g, " ");
    throw new UpstreamError("overpass", `answer from ${url} is not JSON: ${JSON.stringify(snippet)}`);
  }
  let json: { elements?: unknown; remark?: unknown; osm3s?: { timestamp_osm_base?: unknown } };
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new UpstreamError("overpass", `answer from ${url} is not valid JSON: ${String(error)}`);
  }
  if (typeof json.remark === "string" && json.remark.trim() !== "")
    throw new UpstreamError("overpass", `query failed inside an HTTP 200: ${json.remark.trim()}`);
  if (!Array.isArray(json.elements))
    throw new UpstreamError("overpass", `answer from ${url} has no elements array`);
  const base = json.osm3s?.timestamp_osm_base;
  return { elements: json.elements as OverpassElement[], osmBase: typeof base === "string" ? base : null };
}

export async function runOverpassQuery(
  ctx: Pick<HandlerContext, "upstreams">,
  query: string,
): Promise<OverpassAnswer> {
  const client = ctx.upstreams.client(OVERPASS_UPSTREAM);
  const response = await client.get({
    path: INTERPRETER_PATH,
    query: { data: query },
    headers: { accept: "application/json" },
  });
  if (response.status !== 200) {
    const detail = response.body.trim().slice(0, 200).replace(/\s+/g, " ");
    throw new UpstreamError(
      "overpass",
      `HTTP ${response.status} from ${client.baseUrl}${INTERPRETER_PATH}${detail ? `: ${detail}` : ""}`,
      response.status,
    );
  }
  return {
    ...parseOverpassBody(response.body, response.url),
    url: response.url,
    recordedSample: response.recordedSample,
  };
}
