// The OSM warmer: one Overpass query per target (area bbox, resort ring), each target's places replaced in
// one transaction. A failing target keeps its previous places and records its error; the others go on.
import type { HandlerContext, Warmer } from "../../../catalog/product.ts";
import { errorText } from "../../../json.ts";
import { bumpOsmVersion } from "../data/data-version.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { normaliseElements } from "./normalise.ts";
import { runOverpassQuery } from "./overpass.ts";
import { invalidatePlaces } from "./place-catalog.ts";
import { listTargets, type OsmTarget } from "./targets.ts";

export const OSM_WARMER = "mountain.osm";
export const OSM_JOB_QUEUE = "mountain-osm";
/** A buyer's miss queues its target again only when the last attempt is older than this. */
const REQUEUE_AFTER_MS = 60_000;

interface TargetRefresh {
  target: string;
  places: number;
  skipped: number;
}

async function refreshTarget(
  ctx: Pick<HandlerContext, "store" | "upstreams">,
  target: OsmTarget,
): Promise<TargetRefresh> {
  const db = mountainDb(ctx.store);
  const attemptedAt = new Date().toISOString();
  try {
    const answer = await runOverpassQuery(ctx, target.query);
    const { places, skipped } = normaliseElements(answer.elements);
    const fetchedAt = new Date().toISOString();
    await db.transaction().execute(async (trx) => {
      // The target's row first: its row lock makes a second writer of this target (another node, or a
      // concurrent run) wait for this commit, so its delete then sees these places instead of inserting beside
      // them into a duplicate key on PostgreSQL.
      const state = {
        kind: target.kind,
        ref: target.ref,
        attempted_at: attemptedAt,
        fetched_at: fetchedAt,
        error: null,
        error_at: null,
        places: places.length,
        recorded_sample: answer.recordedSample ? 1 : 0,
        source_url: answer.url,
      };
      await trx
        .insertInto("mountain_osm_targets")
        .values({ id: target.id, ...state })
        .onConflict((oc) => oc.column("id").doUpdateSet(state))
        .execute();
      await trx.deleteFrom("mountain_osm_places").where("target", "=", target.id).execute();
      for (let i = 0; i < places.length; i += 200) {
        await trx
          .insertInto("mountain_osm_places")
          .values(
            places.slice(i, i + 200).map((p) => ({
              target: target.id,
              id: p.id,
              name: p.name,
              type: p.type,
              cuisine: p.cuisine ? JSON.stringify(p.cuisine) : null,
              address: p.address ? JSON.stringify(p.address) : null,
              lat: p.lat,
              lon: p.lon,
              hours: p.hours,
              phone: p.phone,
              website: p.website,
              country: target.country,
              area: target.area,
              currency: target.currency,
              fetched_at: fetchedAt,
              recorded_sample: answer.recordedSample ? 1 : 0,
            })),
          )
          .execute();
      }
    });
    return { target: target.id, places: places.length, skipped };
  } catch (error) {
    const message = errorText(error);
    const failure = { attempted_at: attemptedAt, error: message.slice(0, 1000), error_at: attemptedAt };
    await db
      .insertInto("mountain_osm_targets")
      .values({
        id: target.id,
        kind: target.kind,
        ref: target.ref,
        fetched_at: null,
        places: 0,
        recorded_sample: 0,
        source_url: null,
        ...failure,
      })
      .onConflict((oc) => oc.column("id").doUpdateSet(failure))
      .execute();
    throw error;
  }
}

async function afterRefresh(ctx: Pick<HandlerContext, "store">): Promise<void> {
  await bumpOsmVersion(ctx.store);
  invalidatePlaces(ctx.store);
}

interface OsmWarmCounts {
  targets: number;
  fetched: number;
  fresh: number;
  failed: number;
  places: number;
  errors: string[];
  [key: string]: unknown;
}

/** Fetches every target not refreshed within `refreshMs` (a little less, so daily runs do not drift). */
export async function warmOsm(
  ctx: HandlerContext,
  refreshMs: number,
  now = new Date(),
): Promise<OsmWarmCounts> {
  await ensureSampleData(ctx);
  const db = mountainDb(ctx.store);
  const targets = await listTargets(db);
  const states = new Map(
    (await db.selectFrom("mountain_osm_targets").select(["id", "fetched_at"]).execute()).map((s) => [
      s.id,
      s.fetched_at,
    ]),
  );
  const counts: OsmWarmCounts = {
    targets: targets.length,
    fetched: 0,
    fresh: 0,
    failed: 0,
    places: 0,
    errors: [],
  };
  for (const target of targets) {
    const fetchedAt = states.get(target.id);
    if (fetchedAt && now.getTime() - Date.parse(fetchedAt) < refreshMs * 0.9) {
      counts.fresh++;
      continue;
    }
    try {
      const result = await refreshTarget(ctx, target);
      counts.fetched++;
      counts.places += result.places;
    } catch (error) {
      counts.failed++;
      const message = `${target.id}: ${errorText(error)}`;
      if (counts.errors.length < 5) counts.errors.push(message.slice(0, 300));
      ctx.log.warn({ target: target.id, err: message }, "overpass target failed");
    }
  }
  if (counts.fetched > 0) await afterRefresh(ctx);
  if (counts.failed > 0 && counts.fetched === 0)
    throw new Error(`every Overpass target failed (${counts.failed}): ${counts.errors.join("; ")}`);
  return counts;
}

export function osmWarmer(refreshMs: number): Warmer {
  return { name: OSM_WARMER, everyMs: refreshMs, run: (ctx) => warmOsm(ctx, refreshMs) };
}

/** The job that fetches one target at once (queued by a buyer's miss). */
export async function runTargetJob(payload: unknown, ctx: HandlerContext): Promise<void> {
  const id = String((payload as { target?: unknown })?.target ?? "");
  await ensureSampleData(ctx);
  const target = (await listTargets(mountainDb(ctx.store))).find((t) => t.id === id);
  if (!target) return;
  await refreshTarget(ctx, target);
  await afterRefresh(ctx);
}

/** Queues targets for fetching unless one was tried within the last minute; returns seconds to wait. */
export async function queueTargets(ctx: Pick<HandlerContext, "store">, targetIds: string[]): Promise<number> {
  const db = mountainDb(ctx.store);
  const states = targetIds.length
    ? await db
        .selectFrom("mountain_osm_targets")
        .select(["id", "attempted_at"])
        .where("id", "in", targetIds)
        .execute()
    : [];
  const attempted = new Map(states.map((s) => [s.id, s.attempted_at]));
  for (const id of targetIds) {
    const at = attempted.get(id);
    if (at && Date.now() - Date.parse(at) < REQUEUE_AFTER_MS) continue;
    await ctx.store.jobs.enqueue(OSM_JOB_QUEUE, id, { target: id });
  }
  return 60 + 10 * Math.min(targetIds.length, 6);
}
