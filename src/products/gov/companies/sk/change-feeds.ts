// The Slovak registers' change feeds, read daily: what changed since the last good run is re-queued for
// fetching when we hold it, so a cached company or its accounts are refreshed the day they change instead of
// when they age out (COMPANY_REFRESH_MS). Nothing new is fetched: only items already cached.
//
// RÚZ: GET /uctovne-jednotky?zmenene-od=YYYY-MM-DD&max-zaznamov=1000&pokracovat-za-id=<last id> → {"id": […],
// "existujeDalsieId"} lists the accounting units changed since that day (reference C5); our cached accounts
// carry their unit id in sourceUrl (…/accountingentity/show/{id}). RPO: GET /search?dbModificationDateAfter=
// YYYY-MM-DD → {"results": […]} lists the entities modified since (reference C4; the parameter's date format
// is not shown in our sources: the ISO date, as RPO's other date fields use). Both feeds are read live only.
import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { UpstreamError } from "../../../../upstream/client.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { cacheFamilyOf, companyQueue } from "../register.ts";
import { SK_ACCOUNTS_INFO } from "./accounts.ts";
import { SK_COMPANIES_INFO } from "./companies.ts";
import { type RpoEntity, rpoIco } from "./rpo-normalise.ts";
import { RPO_UPSTREAM } from "./rpo-upstream.ts";
import { RUZ_UPSTREAM } from "./ruz-upstream.ts";

const SK_RUZ_CHANGES_WARMER = "gov.sk.accounts.changes";
const SK_RPO_CHANGES_WARMER = "gov.sk.companies.changes";
const DAY_MS = 24 * 3600_000;
/** A server down longer than this reads the feed from this many days back only (older items age out anyway). */
const FEED_CATCH_UP_DAYS = 7;
/** RÚZ pages of 1000 unit ids read at most per run. */
const RUZ_MAX_PAGES = 100;
const RUZ_PAGE = 1000;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The day to read the feed from: the day before the last good run (overlap beats a gap), at most a week back. */
async function feedStart(ctx: HandlerContext, warmer: string, now: Date): Promise<string> {
  const last = (await ctx.store.warmerRuns.status(warmer)).lastSuccessAt;
  const from = last ? Date.parse(last) - DAY_MS : now.getTime() - DAY_MS;
  return isoDay(Math.max(from, now.getTime() - FEED_CATCH_UP_DAYS * DAY_MS));
}

async function getJson<T>(
  ctx: HandlerContext,
  spec: typeof RUZ_UPSTREAM,
  path: string,
  query: Record<string, string>,
) {
  const response = await ctx.upstreams.client(spec).get({ path, query, background: true });
  if (response.status !== 200) {
    throw new UpstreamError(spec.name, `HTTP ${response.status} from ${response.url}`, response.status);
  }
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(spec.name, `not JSON from ${response.url}`, response.status);
  }
}

async function requeue(ctx: HandlerContext, info: GovRouteInfo, ico: string): Promise<boolean> {
  return ctx.store.jobs.enqueue(companyQueue(info), ico, { id: ico }, { lane: "warm" });
}

/** The RÚZ unit ids changed since `since`, page by page. */
async function ruzChangedUnits(ctx: HandlerContext, since: string) {
  const units = new Set<number>();
  let after: number | undefined;
  for (let page = 0; page < RUZ_MAX_PAGES; page++) {
    const query: Record<string, string> = { "zmenene-od": since, "max-zaznamov": String(RUZ_PAGE) };
    if (after !== undefined) query["pokracovat-za-id"] = String(after);
    const body = await getJson<{ id?: number[]; existujeDalsieId?: boolean }>(
      ctx,
      RUZ_UPSTREAM,
      "/uctovne-jednotky",
      query,
    );
    const ids = (body.id ?? []).filter((id) => Number.isInteger(id));
    for (const id of ids) units.add(id);
    if (!body.existujeDalsieId || ids.length === 0) return { units, complete: true };
    after = Math.max(...ids);
  }
  return { units, complete: false };
}

const unitIdOf = (sourceUrl: unknown) => {
  const match = typeof sourceUrl === "string" ? /\/accountingentity\/show\/(\d+)$/.exec(sourceUrl) : null;
  return match ? Number(match[1]) : null;
};

export async function readRuzChanges(ctx: HandlerContext, now: Date): Promise<Record<string, unknown>> {
  if (ctx.upstreams.mode === "replay")
    return { skipped: "the RÚZ change feed is read live only (UPSTREAMS=replay)" };
  const since = await feedStart(ctx, SK_RUZ_CHANGES_WARMER, now);
  const { units, complete } = await ruzChangedUnits(ctx, since);
  const family = cacheFamilyOf(SK_ACCOUNTS_INFO);
  let requeued = 0;
  for (const ico of await ctx.store.cache.keys(family)) {
    const doc = await ctx.store.cache.get<{ sourceUrl?: unknown }>(family, ico);
    const unit = unitIdOf(doc?.body.sourceUrl);
    if (unit !== null && units.has(unit) && (await requeue(ctx, SK_ACCOUNTS_INFO, ico))) requeued++;
  }
  return { since, changedUnits: units.size, complete, requeued };
}

export async function readRpoChanges(ctx: HandlerContext, now: Date): Promise<Record<string, unknown>> {
  if (ctx.upstreams.mode === "replay")
    return { skipped: "the RPO change feed is read live only (UPSTREAMS=replay)" };
  const since = await feedStart(ctx, SK_RPO_CHANGES_WARMER, now);
  const body = await getJson<{ results?: RpoEntity[] }>(ctx, RPO_UPSTREAM, "/search", {
    dbModificationDateAfter: since,
  });
  const family = cacheFamilyOf(SK_COMPANIES_INFO);
  const changed = new Set<string>();
  for (const entity of body.results ?? []) {
    const ico = rpoIco(entity);
    if (ico && /^\d{6,8}$/.test(ico)) changed.add(ico.padStart(8, "0"));
  }
  let requeued = 0;
  for (const ico of changed) {
    if ((await ctx.store.cache.get(family, ico)) && (await requeue(ctx, SK_COMPANIES_INFO, ico))) requeued++;
  }
  return { since, changed: changed.size, requeued };
}

export function skChangeFeedWarmers(clock: () => Date = () => new Date()): Warmer[] {
  return [
    { name: SK_RUZ_CHANGES_WARMER, everyMs: DAY_MS, run: (ctx) => readRuzChanges(ctx, clock()) },
    { name: SK_RPO_CHANGES_WARMER, everyMs: DAY_MS, run: (ctx) => readRpoChanges(ctx, clock()) },
  ];
}
