// Per-product daily counts of 402 challenges, paid calls and free samples (the conversion figures).
// A 402 must cost no query (the challenge path serves tens of thousands a second), so each node counts in
// memory and adds its counts to the store every few seconds and when it stops.
import type { Kysely } from "kysely";
import { Repository } from "./repository.ts";
import { DAILY_COUNT_KINDS, type DailyCountKind, type Database } from "./schema.ts";

const DAY_MS = 24 * 3600_000;
const FLUSH_EVERY_MS = 5000;
/** Rows per upsert: well under PostgreSQL's 65,535 bound parameters (4 a row). */
const ROWS_PER_STATEMENT = 500;

interface DailyCount {
  day: string;
  sku: string;
  kind: DailyCountKind;
  count: number;
}

export type Tally = Record<DailyCountKind, number>;
/** day → sku → counts: the hot path touches one small object, not a string key built per event. */
type Counts = Map<string, Map<string, Tally>>;

function rowsOf(counts: Counts): DailyCount[] {
  const rows: DailyCount[] = [];
  for (const [day, skus] of counts) {
    for (const [sku, tally] of skus) {
      for (const kind of DAILY_COUNT_KINDS)
        if (tally[kind] > 0) rows.push({ day, sku, kind, count: tally[kind] });
    }
  }
  return rows;
}

export function emptyTally(): Tally {
  return Object.fromEntries(DAILY_COUNT_KINDS.map((kind) => [kind, 0])) as Tally;
}

function tallyIn(skus: Map<string, Tally>, sku: string): Tally {
  let tally = skus.get(sku);
  if (!tally) {
    tally = emptyTally();
    skus.set(sku, tally);
  }
  return tally;
}

export class DailyCounterRepository extends Repository {
  private pending: Counts = new Map();
  /** The current day's entry of `pending`. */
  private today: Map<string, Tally> | undefined;
  private dayEndsAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly flushEveryMs: number;

  constructor(db: Kysely<Database>, flushEveryMs = FLUSH_EVERY_MS) {
    super(db);
    this.flushEveryMs = flushEveryMs;
  }

  /** Counts one event now, in memory; it reaches the store with the next flush. */
  count(sku: string, kind: DailyCountKind, n = 1): void {
    const now = Date.now();
    if (!this.today || now >= this.dayEndsAt) this.today = this.dayEntry(now);
    tallyIn(this.today, sku)[kind] += n;
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.flush().catch(() => {
          // The counts stay buffered and go with the next flush.
        });
      }, this.flushEveryMs);
      this.timer.unref();
    }
  }

  private dayEntry(now: number): Map<string, Tally> {
    this.dayEndsAt = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    return this.skusOf(new Date(now).toISOString().slice(0, 10));
  }

  private skusOf(day: string): Map<string, Tally> {
    let skus = this.pending.get(day);
    if (!skus) {
      skus = new Map();
      this.pending.set(day, skus);
    }
    return skus;
  }

  /** (day, sku, kind) counts not yet written to the store. */
  get buffered(): number {
    return rowsOf(this.pending).length;
  }

  /** Adds the buffered counts to the store; on failure they stay buffered for the next flush. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => {});
    const rows = rowsOf(this.pending);
    this.pending = new Map();
    this.today = undefined;
    if (rows.length === 0) return;
    this.flushing = this.write(rows).catch((error: unknown) => {
      for (const row of rows) tallyIn(this.skusOf(row.day), row.sku)[row.kind] += row.count;
      throw error;
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Stops the flush timer and writes what is buffered (the node is stopping). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(rows: DailyCount[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        await trx
          .insertInto("daily_counts")
          .values(rows.slice(i, i + ROWS_PER_STATEMENT))
          .onConflict((oc) =>
            oc
              .columns(["day", "sku", "kind"])
              .doUpdateSet((eb) => ({ count: eb("daily_counts.count", "+", eb.ref("excluded.count")) })),
          )
          .execute();
      }
    });
  }

  /** Stored counts of the days from `fromDay` to `toDay` (YYYY-MM-DD, inclusive). */
  async between(fromDay: string, toDay: string): Promise<DailyCount[]> {
    const rows = await this.db
      .selectFrom("daily_counts")
      .selectAll()
      .where("day", ">=", fromDay)
      .where("day", "<=", toDay)
      .orderBy("day")
      .orderBy("sku")
      .orderBy("kind")
      .execute();
    return rows.map((r) => ({ ...r, count: Number(r.count) }));
  }
}
