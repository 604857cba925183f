// Which OSM targets cover a request and whether they have been fetched: a miss queues them and answers 404
// not_cached (never charged) with the seconds to wait.
import type { ErrorOutcome, HandlerContext } from "../../../catalog/product.ts";
import { notCached } from "../../../catalog/product.ts";
import type { Store } from "../../../store/store.ts";
import { currentVersion } from "../data/data-version.ts";
import { mountainDb, type OsmTargetTable } from "../data/schema.ts";
import { listTargets, type OsmTarget, RING_KM } from "../osm/targets.ts";
import { queueTargets } from "../osm/warmer.ts";
import { distanceKm } from "../shared/geo.ts";

interface TargetWithState extends OsmTarget {
  state: OsmTargetTable | undefined;
  /** The ring's centre or the area's box, for coverage tests. */
  covers: (lat: number, lon: number) => boolean;
}

const memo = new WeakMap<Store, { version: string; targets: Promise<TargetWithState[]> }>();

/** Every target with its fetch state, read again whenever an import or an OSM refresh changed the version. */
export async function targetsWithState(ctx: HandlerContext): Promise<TargetWithState[]> {
  const version = await currentVersion(ctx.store, 10_000);
  const known = memo.get(ctx.store);
  if (known && known.version === version) return known.targets;
  const targets = readTargets(ctx);
  memo.set(ctx.store, { version, targets });
  targets.catch(() => memo.delete(ctx.store));
  return targets;
}

async function readTargets(ctx: HandlerContext): Promise<TargetWithState[]> {
  const db = mountainDb(ctx.store);
  const [targets, states, areas, resorts] = await Promise.all([
    listTargets(db),
    db.selectFrom("mountain_osm_targets").selectAll().execute(),
    db.selectFrom("mountain_areas").select(["id", "south", "west", "north", "east"]).execute(),
    db.selectFrom("mountain_resorts").select(["id", "lat", "lon"]).execute(),
  ]);
  const stateOf = new Map(states.map((s) => [s.id, s]));
  const areaOf = new Map(areas.map((a) => [a.id, a]));
  const resortOf = new Map(resorts.map((r) => [r.id, r]));
  return targets.map((target) => {
    let covers: TargetWithState["covers"] = () => false;
    if (target.kind === "area") {
      const a = areaOf.get(target.ref)!;
      covers = (lat, lon) => lat >= a.south && lat <= a.north && lon >= a.west && lon <= a.east;
    } else {
      const r = resortOf.get(target.ref)!;
      covers = (lat, lon) => distanceKm(lat, lon, Number(r.lat), Number(r.lon)) <= RING_KM;
    }
    return { ...target, state: stateOf.get(target.id), covers };
  });
}

export function isFetched(target: { state: OsmTargetTable | undefined }): boolean {
  return Boolean(target.state?.fetched_at);
}

/**
 * Queues the targets and answers 404 not_cached naming what is being fetched. `what` is the subject of the
 * sentence and says whether it is one thing or several: the verb agrees with it, not with the targets.
 */
export async function queueAndWait(
  ctx: HandlerContext,
  targets: OsmTarget[],
  what: { subject: string; plural: boolean },
): Promise<ErrorOutcome> {
  const retryAfterSec = await queueTargets(
    ctx,
    targets.map((t) => t.id),
  );
  return notCached(
    `${what.subject} ${what.plural ? "are" : "is"} not cached yet; OpenStreetMap places for ${targets.map((t) => t.id).join(", ")} have been queued for fetching. Try again in about ${retryAfterSec} seconds.`,
    retryAfterSec,
  );
}

/**
 * What a check may answer before payment: 400s and definite 404s. A miss that is only not cached yet (and is
 * now queued) still gets its 402, and answers not_cached, uncharged, if bought before the data arrives.
 */
export function refusedBeforePayment(resolved: unknown): ErrorOutcome | undefined {
  if (typeof resolved !== "object" || resolved === null || !("status" in resolved) || !("body" in resolved))
    return undefined;
  const outcome = resolved as ErrorOutcome;
  return outcome.body.error === "not_cached" ? undefined : outcome;
}
