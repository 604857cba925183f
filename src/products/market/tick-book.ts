// The collector's in-memory state: the latest trade per symbol and the counters. Updating it is all that
// happens per message; the store is written from it in batches.
import type { StoredTick } from "./snapshot.ts";
import type { MarketSymbol } from "./symbols.ts";
import { type Frame, parseFrame, type Trade } from "./trade-frame.ts";

/** A trade and when it was received (epoch ms; turned into ISO text only when a batch is written). */
interface LiveTick extends Trade {
  receivedAt: number;
}

export class TickBook {
  private readonly ticks = new Map<MarketSymbol, LiveTick>();
  msgs = 0;
  invalid = 0;
  lastMessageAt: number | null = null;
  /** Ticks changed since the last batch was taken. */
  dirty = false;

  /** Parses one frame and keeps its trade when it is newer than the symbol's latest. */
  ingest(text: string, now = Date.now()): Frame {
    const frame = parseFrame(text);
    this.lastMessageAt = now;
    if (frame.kind === "trade") {
      this.msgs++;
      this.apply(frame.trade, now);
    } else if (frame.kind === "invalid") this.invalid++;
    return frame;
  }

  apply(trade: Trade, now = Date.now()): void {
    const previous = this.ticks.get(trade.symbol);
    // Across a reconnect (or while two connections overlap) older trades may arrive after newer ones.
    if (
      previous &&
      (trade.tradeTime < previous.tradeTime ||
        (trade.tradeTime === previous.tradeTime && trade.tradeId <= previous.tradeId))
    )
      return;
    (trade as LiveTick).receivedAt = now;
    this.ticks.set(trade.symbol, trade as LiveTick);
    this.dirty = true;
  }

  /** Continues from the snapshot of the collector that led before (ticks newer than ours, its counter). */
  restore(ticks: Iterable<StoredTick>, msgs: number): void {
    for (const { updatedAt, ...trade } of ticks) {
      const ours = this.ticks.get(trade.symbol);
      if (!ours || trade.tradeTime > ours.tradeTime)
        this.ticks.set(trade.symbol, { ...trade, receivedAt: Date.parse(updatedAt) });
    }
    this.msgs = msgs;
  }

  /** The ticks to write, clearing the dirty flag. */
  takeBatch(): Partial<Record<MarketSymbol, StoredTick>> {
    this.dirty = false;
    const batch: Partial<Record<MarketSymbol, StoredTick>> = {};
    for (const [symbol, { receivedAt, ...trade }] of this.ticks)
      batch[symbol] = { ...trade, updatedAt: new Date(receivedAt).toISOString() };
    return batch;
  }
}
