// CourtListener's health as this service saw it, shared by every node through the store: the last good
// and bad exchange. A pause CourtListener imposed and the searches left in its windows live in the
// upstream budget (src/budgets/booking.ts), read through `searchBudget`.

import type { BudgetState } from "../../budgets/booking.ts";
import type { HandlerContext } from "../../catalog/product.ts";
import type { Store } from "../../store/store.ts";
import type { CourtsSettings } from "./settings.ts";
import { courtListenerSpec } from "./upstream.ts";

const COURTS_META_FAMILY = "courts-meta";
const HEALTH_KEY = "upstream";

interface UpstreamHealth {
  lastOkAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
  lastStatus: number | null;
}

type HealthState = "unknown" | "ok" | "failing" | "throttled";

const EMPTY: UpstreamHealth = { lastOkAt: null, lastErrorAt: null, lastError: null, lastStatus: null };

export async function readHealth(store: Store): Promise<UpstreamHealth> {
  const doc = await store.cache.get<UpstreamHealth>(COURTS_META_FAMILY, HEALTH_KEY);
  return { ...EMPTY, ...doc?.body };
}

/** The pause and windows of CourtListener's budget, cluster-wide. */
export function searchBudget(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: Pick<CourtsSettings, "minIntervalMs" | "limits" | "warmShare">,
): Promise<BudgetState> {
  return ctx.upstreams.client(courtListenerSpec(settings)).budgetState();
}

/** Seconds left of a pause CourtListener imposed, or 0. */
export function pauseLeftSec(budget: Pick<BudgetState, "pausedUntilMs">, now = new Date()): number {
  if (budget.pausedUntilMs === null) return 0;
  return Math.max(0, Math.ceil((budget.pausedUntilMs - now.getTime()) / 1000));
}

export function healthState(
  health: UpstreamHealth,
  budget: Pick<BudgetState, "pausedUntilMs">,
  now = new Date(),
): HealthState {
  if (pauseLeftSec(budget, now) > 0) return "throttled";
  if (!health.lastOkAt && !health.lastErrorAt) return "unknown";
  if (!health.lastErrorAt) return "ok";
  if (!health.lastOkAt) return "failing";
  return health.lastOkAt >= health.lastErrorAt ? "ok" : "failing";
}

type Exchange = { ok: true } | { ok: false; error: string; status: number | undefined };

export async function recordExchange(store: Store, exchange: Exchange, now = new Date()): Promise<void> {
  const health = await readHealth(store);
  const at = now.toISOString();
  const next: UpstreamHealth = { ...health };
  if (exchange.ok) {
    next.lastOkAt = at;
    next.lastStatus = 200;
  } else {
    next.lastErrorAt = at;
    next.lastError = exchange.error.slice(0, 500);
    next.lastStatus = exchange.status ?? null;
  }
  await store.cache.put(COURTS_META_FAMILY, HEALTH_KEY, { body: next, fetchedAt: at });
}
