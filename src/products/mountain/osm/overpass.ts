// The Overpass API: OpenStreetMap food and drink places (amenity restaurant, cafe, bar, pub, fast_food) in
// an area's bounding box or a ring around a resort, one Overpass QL query per target, sent as GET ?data=.
// Limits (https://wiki.openstreetmap.org/wiki/Overpass_API, dev.overpass-api.de/overpass-doc): each IP gets a
// few slots on the public instances; over them the server answers 429 (or 504 when overloaded) without
// Retry-After, and /api/status says when a slot frees ("Slot available after: <time>, in N seconds." or
// "N slots available now."). For production run your own instance and point OVERPASS_BASE_URL at it.
import type { HandlerContext } from "../../../catalog/product.ts";
import { type UpstreamClient, UpstreamError, type UpstreamSpec } from "../../../upstream/client.ts";
import { PLACE_TYPES } from "../shared/params.ts";

const STATUS_PATH = "/status";
/** A refusal pauses every Overpass request this long when /api/status names no time. */
const OVERPASS_DEFAULT_PAUSE_MS = 5 * 60_000;
/** Even when /api/status shows a free slot (an overloaded 504), the next query waits at least this long. */
const OVERPASS_MIN_PAUSE_MS = 60_000;

/**
 * How long until this IP gets a slot, from /api/status's text: 0 when a slot is free now, the soonest
 * "in N seconds" otherwise, undefined when the text says neither.
 */
export function parseOverpassStatus(text: string): number | undefined {
  if (/^\s*\d+ slots? available now\./m.test(text)) return 0;
  const waits = [...text.matchAll(/^\s*Slot available after: \S+, in (-?\d+) seconds?\./gm)].map((m) =>
    Math.max(0, Number(m[1]) * 1000),
  );
  return waits.length > 0 ? Math.min(...waits) : undefined;
}

/** Asks /api/status when a slot frees (it does not use one). */
async function overpassSlotWaitMs(client: UpstreamClient): Promise<number | undefined> {
  const response = await client.probe({ path: STATUS_PATH, headers: { accept: "text/plain" } });
  return response.status === 200 ? parseOverpassStatus(response.body) : undefined;
}

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
  // 429 and 504 pause every node's queries for minutes, as long as /api/status says, never seconds.
  throttle: {
    statuses: [429, 504],
    defaultPauseMs: OVERPASS_DEFAULT_PAUSE_MS,
    minPauseMs: OVERPASS_MIN_PAUSE_MS,
    probe: overpassSlotWaitMs,
  },
};

const INTERPRETER_PATH = "/interpreter";
/** The server-side timeout of each query, in seconds. */
const QUERY_TIMEOUT_SEC = 60;

const AMENITY_FILTER = `nwr["amenity"~"^(${PLACE_TYPES.join("|")})$"]`;

/** Fixed formatting, so the same target always gives the same query text (recordings match on it). */
function coordinate(value: number): string {
  return String(Number(value.toFixed(6)));
}

interface BBox {
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

interface OverpassAnswer {
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
