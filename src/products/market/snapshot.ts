// What the collector writes to the store (family "market", key "latest"): the latest tick per symbol and the
// collector's state, in one document written in batches. Every node reads it; reads share a short memo.
import type { CachedDocument } from "../../store/cache.ts";
import type { Store } from "../../store/store.ts";
import type { MarketSymbol } from "./symbols.ts";

const MARKET_FAMILY = "market";
const SNAPSHOT_KEY = "latest";
export const COLLECTOR_LEASE = "market-collector";
/** Readers see a new batch at most this late. */
const READ_MEMO_MS = 200;

export interface StoredTick {
  symbol: MarketSymbol;
  price: number;
  qty: number;
  tradeId: number;
  tradeTime: number;
  eventTime: number;
  /** When the collector received the trade (ISO 8601 UTC). */
  updatedAt: string;
}

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "stopped" | "replay";

export interface MarketSnapshot {
  /** The stream URL the ticks came from. */
  source: string;
  /** The combined stream's names. */
  stream: string;
  holder: string;
  connection: ConnectionState;
  connectedAt: string | null;
  lastMessageAt: string | null;
  /** Trade messages received, and batch writes of ticks to the store, since the first collector started. */
  msgs: number;
  writes: number;
  reconnects: number;
  lastError: string | null;
  ticks: Partial<Record<MarketSymbol, StoredTick>>;
}

export function readSnapshot(store: Store): Promise<CachedDocument<MarketSnapshot> | undefined> {
  return store.cache.getRecent<MarketSnapshot>(MARKET_FAMILY, SNAPSHOT_KEY, READ_MEMO_MS);
}

export function readSnapshotNow(store: Store): Promise<CachedDocument<MarketSnapshot> | undefined> {
  return store.cache.get<MarketSnapshot>(MARKET_FAMILY, SNAPSHOT_KEY);
}

export async function writeSnapshot(
  store: Store,
  snapshot: MarketSnapshot,
  recordedSample: boolean,
): Promise<void> {
  await store.cache.put(MARKET_FAMILY, SNAPSHOT_KEY, {
    body: snapshot,
    fetchedAt: new Date().toISOString(),
    recordedSample,
  });
}
