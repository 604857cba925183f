// The daily KRS bulletin (Biuletyn): the numbers changed on each day since the last one read are queued for a
// refresh, which re-reads the extract and updates the cache and our name index (new entities join it). The
// refreshes are spread out so that buyers' lookups, queued to run at once, are never behind them.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { parseKrs } from "./identifiers.ts";
import { fetchBulletin } from "./upstream.ts";

const PL_BULLETIN_WARMER = "gov.pl.companies.bulletin";
const PL_STATE_FAMILY = "gov-co-pl-state";
const STATE_KEY = "bulletin";
const DAY_MS = 24 * 3600_000;
/** Days read at most in one run (a server that was down catches up on this many). */
const BULLETIN_CATCH_UP_DAYS = 7;
/** Gap between two queued refreshes: at most 28,800 a day, a third of the KRS spacing. */
export const BULLETIN_SPACING_MS = 3000;
/** Refreshes queued at most per run (about 21 hours of them). */
const BULLETIN_MAX_QUEUED = 25_000;

interface BulletinState {
  /** The last day whose numbers were all queued (YYYY-MM-DD). */
  lastDay: string;
  numbers: number;
  readAt: string;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function bulletinState(ctx: Pick<HandlerContext, "store">): Promise<BulletinState | null> {
  return (await ctx.store.cache.get<BulletinState>(PL_STATE_FAMILY, STATE_KEY))?.body ?? null;
}

async function readBulletins(
  ctx: HandlerContext,
  queue: string,
  now: Date,
): Promise<Record<string, unknown>> {
  if (ctx.upstreams.mode === "replay")
    return { skipped: "the bulletin is read live only (UPSTREAMS=replay)" };
  const yesterday = isoDay(now.getTime() - DAY_MS);
  const earliest = isoDay(now.getTime() - BULLETIN_CATCH_UP_DAYS * DAY_MS);
  const state = await bulletinState(ctx);
  let day = state ? isoDay(Date.parse(state.lastDay) + DAY_MS) : yesterday;
  if (day < earliest) day = earliest;
  let queued = 0;
  let numbers = 0;
  let days = 0;
  while (day <= yesterday) {
    const listed = await fetchBulletin(ctx, day);
    const valid = [
      ...new Set(
        listed.flatMap((raw) => {
          const parsed = parseKrs(raw);
          return "id" in parsed ? [parsed.id] : [];
        }),
      ),
    ];
    if (queued + valid.length > BULLETIN_MAX_QUEUED && days > 0) break;
    for (const krs of valid.slice(0, BULLETIN_MAX_QUEUED - queued)) {
      const runAt = new Date(now.getTime() + queued * BULLETIN_SPACING_MS);
      // Keyed apart from buyers' lookups (key = the number), so a buyer is never queued behind a refresh.
      if (await ctx.store.jobs.enqueue(queue, `bulletin:${krs}`, { id: krs }, { runAt, lane: "warm" }))
        queued++;
    }
    numbers += listed.length;
    days++;
    await ctx.store.cache.put<BulletinState>(PL_STATE_FAMILY, STATE_KEY, {
      body: { lastDay: day, numbers: listed.length, readAt: now.toISOString() },
      fetchedAt: now.toISOString(),
    });
    day = isoDay(Date.parse(day) + DAY_MS);
  }
  return { days, numbers, queued, lastDay: (await bulletinState(ctx))?.lastDay ?? null };
}

export function plBulletinWarmer(queue: string, clock: () => Date = () => new Date()): Warmer {
  return { name: PL_BULLETIN_WARMER, everyMs: DAY_MS, run: (ctx) => readBulletins(ctx, queue, clock()) };
}
