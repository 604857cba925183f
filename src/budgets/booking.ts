// An upstream budget: request spacing, sliding-window limits and a pause the upstream imposed (a 429, SEC's
// ten-minute block, Overpass's slot times). The store books it for the whole cluster; without a store this
// process keeps it alone, by the same rule.
import { earliestStartWithin, LONGEST_WINDOW_MS, type WindowLimits, windowUse } from "./windows.ts";

export interface BookingRequest {
  budget: string;
  /** Least gap between two request starts. */
  intervalMs: number;
  limits?: WindowLimits;
  /** Background work (warmers): it may fill only `share` of each window. */
  background?: { share: number };
  /** A start later than this from now is not booked: the caller is told when the budget frees instead. */
  maxWaitMs: number;
}

export type BookingResult =
  | { booked: true; startAt: number }
  | { booked: false; availableAt: number; reason: "paused" | "spent"; pauseReason: string | null };

export interface BudgetState {
  pausedUntilMs: number | null;
  pauseReason: string | null;
  windows: ReturnType<typeof windowUse>;
}

export interface BudgetBook {
  book(request: BookingRequest, nowMs?: number): Promise<BookingResult>;
  /** No request of `budget` starts before `untilMs` on any node; a longer pause already set stays. */
  pause(budget: string, untilMs: number, reason: string, nowMs?: number): Promise<void>;
  state(budget: string, limits: WindowLimits | undefined, nowMs?: number): Promise<BudgetState>;
}

/** The booking rule both implementations share: where the next start goes, or why there is none soon. */
export function decideBooking(
  request: BookingRequest,
  nowMs: number,
  current: {
    nextStartMs: number;
    pausedUntilMs: number | null;
    pauseReason: string | null;
    booked: number[];
  },
): BookingResult {
  const paused = current.pausedUntilMs !== null && current.pausedUntilMs > nowMs ? current.pausedUntilMs : 0;
  const notBefore = Math.max(nowMs, current.nextStartMs, paused);
  const startAt = request.limits
    ? earliestStartWithin(current.booked, request.limits, notBefore, request.background)
    : notBefore;
  if (startAt - nowMs <= request.maxWaitMs) return { booked: true, startAt };
  const pausedLonger = paused > 0 && paused >= startAt;
  return {
    booked: false,
    availableAt: startAt,
    reason: pausedLonger ? "paused" : "spent",
    pauseReason: pausedLonger ? current.pauseReason : null,
  };
}

interface LocalBudget {
  nextStartMs: number;
  pausedUntilMs: number | null;
  pauseReason: string | null;
  booked: number[];
}

/** This process only (no store): used by tests and tools that run without one. */
export class LocalBudgetBook implements BudgetBook {
  private readonly budgets = new Map<string, LocalBudget>();

  private get(budget: string): LocalBudget {
    let state = this.budgets.get(budget);
    if (!state) {
      state = { nextStartMs: 0, pausedUntilMs: null, pauseReason: null, booked: [] };
      this.budgets.set(budget, state);
    }
    return state;
  }

  async book(request: BookingRequest, nowMs = Date.now()): Promise<BookingResult> {
    const state = this.get(request.budget);
    state.booked = state.booked.filter((start) => start > nowMs - LONGEST_WINDOW_MS);
    const result = decideBooking(request, nowMs, state);
    if (result.booked) {
      state.nextStartMs = result.startAt + request.intervalMs;
      if (request.limits) state.booked.push(result.startAt);
    }
    return result;
  }

  async pause(budget: string, untilMs: number, reason: string): Promise<void> {
    const state = this.get(budget);
    if (state.pausedUntilMs === null || untilMs > state.pausedUntilMs) {
      state.pausedUntilMs = untilMs;
      state.pauseReason = reason;
    }
  }

  async state(budget: string, limits: WindowLimits | undefined, nowMs = Date.now()): Promise<BudgetState> {
    const state = this.get(budget);
    const paused = state.pausedUntilMs !== null && state.pausedUntilMs > nowMs;
    return {
      pausedUntilMs: paused ? state.pausedUntilMs : null,
      pauseReason: paused ? state.pauseReason : null,
      windows: windowUse(state.booked, limits ?? {}, nowMs),
    };
  }
}
