// Request budgets over sliding windows (N requests per minute / hour / day), the way the upstreams count
// them (Django REST framework's throttles and NVD keep a log of request times and look back one window).
// One pure rule, used by the store's cluster-wide booking and by the in-process fallback.

export interface WindowLimits {
  perMinute?: number;
  perHour?: number;
  perDay?: number;
}

type WindowName = keyof WindowLimits;

const WINDOW_MS: Record<WindowName, number> = {
  perMinute: 60_000,
  perHour: 3600_000,
  perDay: 86_400_000,
};

const WINDOW_NAMES = Object.keys(WINDOW_MS) as WindowName[];

/** Bookings older than the longest window no longer count anywhere. */
export const LONGEST_WINDOW_MS = WINDOW_MS.perDay;

/**
 * Background work (warmers) may fill only this share of each window, so buyers always find room. At least
 * one request per window stays the buyers' when a window holds more than one.
 */
export function backgroundLimit(limit: number, share: number): number {
  const cap = Math.floor(limit * share);
  return limit > 1 ? Math.min(cap, limit - 1) : cap;
}

export function hasLimits(limits: WindowLimits | undefined): limits is WindowLimits {
  return limits !== undefined && WINDOW_NAMES.some((name) => limits[name] !== undefined);
}

/**
 * The earliest start at or after `notBefore` at which one more request stays within every window, given the
 * start times already booked (none later than `notBefore`: bookings are made in order). For each window of
 * length D and limit N the N-th latest booking must have left the window: start ≥ that booking + D.
 */
export function earliestStartWithin(
  booked: readonly number[],
  limits: WindowLimits,
  notBefore: number,
  background: { share: number } | undefined,
): number {
  const latestFirst = [...booked].sort((a, b) => b - a);
  let start = notBefore;
  for (const name of WINDOW_NAMES) {
    const limit = limits[name];
    if (limit === undefined) continue;
    const allowed = background ? backgroundLimit(limit, background.share) : limit;
    if (allowed <= 0) return Number.POSITIVE_INFINITY;
    const blocking = latestFirst[allowed - 1];
    if (blocking !== undefined) start = Math.max(start, blocking + WINDOW_MS[name]);
  }
  return start;
}

/** Requests booked in each window that ends now (or later), and what is left of each limit. */
export function windowUse(
  booked: readonly number[],
  limits: WindowLimits,
  now: number,
): Partial<Record<WindowName, { limit: number; used: number; left: number }>> {
  const use: Partial<Record<WindowName, { limit: number; used: number; left: number }>> = {};
  for (const name of WINDOW_NAMES) {
    const limit = limits[name];
    if (limit === undefined) continue;
    // A booking for a start a moment from now already holds its place in the window.
    const used = booked.filter((start) => start > now - WINDOW_MS[name]).length;
    use[name] = { limit, used, left: Math.max(0, limit - used) };
  }
  return use;
}
