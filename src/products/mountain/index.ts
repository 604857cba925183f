// The mountain family: ski resorts and lift-ticket prices, restaurants and menus around ski areas (places from
// OpenStreetMap through Overpass), travel corridors, the trip map and insider tips.
import path from "node:path";
import { type FamilyFactory, jobKind } from "../../catalog/product.ts";
import { envInteger, upstreamBaseUrl } from "../../config.ts";
import { mountainMigrations } from "./data/migrations.ts";
import { foodCorridor } from "./food/corridor.ts";
import { foodMenu } from "./food/menu.ts";
import { foodNear } from "./food/near.ts";
import { foodNearResort } from "./food/near-resort.ts";
import { foodStatus } from "./food/status.ts";
import { foodVenues } from "./food/venues.ts";
import { insiderEarlyOpenings } from "./insider/early-openings.ts";
import { insiderInfo } from "./insider/info.ts";
import { insiderStatus } from "./insider/status.ts";
import { OVERPASS_UPSTREAM } from "./osm/overpass.ts";
import { OSM_JOB_QUEUE, osmWarmer, runTargetJob } from "./osm/warmer.ts";
import { overpassPreflight } from "./preflight.ts";
import { skiCoverage } from "./ski/coverage.ts";
import { skiInventory } from "./ski/inventory.ts";
import { skiOperator } from "./ski/operator.ts";
import { skiPrices } from "./ski/prices.ts";
import { skiPricesBulk } from "./ski/prices-bulk.ts";
import { skiQuote } from "./ski/quote.ts";
import { skiResort } from "./ski/resort.ts";
import { skiStatus } from "./ski/status.ts";
import { tripMap } from "./trip/map.ts";

export { IngestError, ingest } from "./data/ingest.ts";
export { INGEST_KINDS } from "./data/records.ts";

export const MOUNTAIN_RECORDINGS_DIR = path.join(import.meta.dirname, "osm", "recordings");

export const mountainFamily: FamilyFactory = (config) => {
  // How often each area and resort ring is fetched again from Overpass (hours).
  const refreshHours = envInteger(config.env, "MOUNTAIN_OSM_REFRESH_HOURS", 24, 1, 24 * 30);
  // Validates OVERPASS_BASE_URL at start-up rather than at the first fetch.
  upstreamBaseUrl(config, OVERPASS_UPSTREAM.name, OVERPASS_UPSTREAM.defaultBaseUrl);
  return {
    name: "mountain",
    preflight: overpassPreflight(),
    products: [
      foodMenu,
      foodNear,
      foodNearResort,
      foodVenues,
      foodCorridor,
      foodStatus,
      skiInventory,
      skiPrices,
      skiResort,
      skiQuote,
      skiOperator,
      skiPricesBulk,
      skiStatus,
      skiCoverage,
      tripMap,
      insiderInfo,
      insiderEarlyOpenings,
      insiderStatus,
    ],
    warmers: [osmWarmer(refreshHours * 3600_000)],
    // Overpass may take 90 s a query, and a target makes several.
    jobs: { [OSM_JOB_QUEUE]: jobKind({ timeLimitMs: 10 * 60_000 }, runTargetJob) },
    recordingsDir: MOUNTAIN_RECORDINGS_DIR,
    migrations: mountainMigrations,
  };
};
