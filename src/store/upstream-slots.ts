// Each upstream's concurrency limit (maxConcurrent) for the whole cluster: a request holds one of the upstream's
// numbered slots in the store while it is in flight, so more nodes or more worker slots never mean more requests
// at once than the upstream allows. A slot whose holder died frees itself when its hold expires.
import { randomUUID } from "node:crypto";
import { Repository } from "./repository.ts";

/** A slot of an upstream's concurrency held by one request. */
export interface SlotHold {
  slot: number;
  holder: string;
}

/** Holds each upstream's maxConcurrent for every node sharing the store. */
export interface SlotBook {
  /** One of the upstream's `max` slots, held at most `holdMs`; undefined while every slot is taken. */
  take(upstream: string, max: number, holdMs: number): Promise<SlotHold | undefined>;
  give(upstream: string, hold: SlotHold): Promise<void>;
}

export class UpstreamSlotRepository extends Repository implements SlotBook {
  /** Upstreams whose slot rows this process has made sure of, with the count. */
  private readonly ensured = new Map<string, number>();

  async take(
    upstream: string,
    max: number,
    holdMs: number,
    nowMs = Date.now(),
  ): Promise<SlotHold | undefined> {
    if (this.ensured.get(upstream) !== max) {
      await this.db
        .insertInto("upstream_slots")
        .values(Array.from({ length: max }, (_, slot) => ({ upstream, slot, holder: null, expires_ms: 0 })))
        .onConflict((oc) => oc.columns(["upstream", "slot"]).doNothing())
        .execute();
      this.ensured.set(upstream, max);
    }
    const holder = randomUUID();
    const free = this.db
      .selectFrom("upstream_slots")
      .select("slot")
      .where("upstream", "=", upstream)
      .where("slot", "<", max)
      .where((eb) => eb.or([eb("holder", "is", null), eb("expires_ms", "<", nowMs)]))
      .orderBy("slot")
      .limit(1)
      // Nodes taking slots at once each skip the row another is taking (SQLite has one writer anyway).
      .$if(this.postgres, (qb) => qb.forUpdate().skipLocked());
    const row = await this.db
      .updateTable("upstream_slots")
      .set({ holder, expires_ms: nowMs + holdMs })
      .where("upstream", "=", upstream)
      .where("slot", "=", free)
      .returning("slot")
      .executeTakeFirst();
    return row ? { slot: Number(row.slot), holder } : undefined;
  }

  async give(upstream: string, hold: SlotHold): Promise<void> {
    await this.db
      .updateTable("upstream_slots")
      .set({ holder: null, expires_ms: 0 })
      .where("upstream", "=", upstream)
      .where("slot", "=", hold.slot)
      .where("holder", "=", hold.holder)
      .execute();
  }

  /** Requests of `upstream` in flight on every node now (holds not yet expired). */
  async inFlight(upstream: string, nowMs = Date.now()): Promise<number> {
    const row = await this.db
      .selectFrom("upstream_slots")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("upstream", "=", upstream)
      .where("holder", "is not", null)
      .where("expires_ms", ">=", nowMs)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
