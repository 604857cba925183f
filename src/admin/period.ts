// The period the operator figures cover: whole UTC days, `from` and `to` inclusive, the last 30 by default.
const DAY_MS = 24 * 3600_000;
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;

export interface Period {
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
  /** Every day of the period, oldest first. */
  days: string[];
  /** ISO timestamps bounding the period: [startsAt, endsBefore). */
  startsAt: string;
  endsBefore: string;
}

type PeriodResult = { ok: true; period: Period } | { ok: false; parameter: "from" | "to"; message: string };

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Milliseconds of a YYYY-MM-DD day's start, or undefined when it is not a real calendar day. */
function parseDay(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && dayOf(ms) === value ? ms : undefined;
}

export function parsePeriod(input: { from?: string; to?: string }, now = new Date()): PeriodResult {
  let toMs = Date.parse(`${dayOf(now.getTime())}T00:00:00Z`);
  if (input.to !== undefined) {
    const parsed = parseDay(input.to);
    if (parsed === undefined)
      return { ok: false, parameter: "to", message: `to: expected a date YYYY-MM-DD, got "${input.to}"` };
    toMs = parsed;
  }
  let fromMs = toMs - (DEFAULT_DAYS - 1) * DAY_MS;
  if (input.from !== undefined) {
    const parsed = parseDay(input.from);
    if (parsed === undefined)
      return {
        ok: false,
        parameter: "from",
        message: `from: expected a date YYYY-MM-DD, got "${input.from}"`,
      };
    fromMs = parsed;
  }
  if (fromMs > toMs)
    return { ok: false, parameter: "from", message: `from: ${dayOf(fromMs)} is after to (${dayOf(toMs)})` };
  const count = Math.round((toMs - fromMs) / DAY_MS) + 1;
  if (count > MAX_DAYS)
    return { ok: false, parameter: "from", message: `from: the period may span at most ${MAX_DAYS} days` };
  const days = Array.from({ length: count }, (_, i) => dayOf(fromMs + i * DAY_MS));
  return {
    ok: true,
    period: {
      from: dayOf(fromMs),
      to: dayOf(toMs),
      days,
      startsAt: new Date(fromMs).toISOString(),
      endsBefore: new Date(toMs + DAY_MS).toISOString(),
    },
  };
}
