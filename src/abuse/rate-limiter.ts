// Per-client limits on unpaid requests (402 challenges, free routes, samples), cluster-wide without a store
// round trip per request: each node judges a request from its own count since the last sync plus the
// cluster's total as the store last answered, and adds its counts to the store about once a second. A
// client over the limit anywhere is refused on every node from the next sync on. Windows are fixed minutes.
//
// The bound across nodes: a node admits at most `slice` requests of one client beyond the cluster total it
// last learned before it must sync that client's count again (`admit` waits for that sync). Each of the other
// N − 1 nodes can hold at most `slice` unknown to the deciding node, so a burst across N nodes passes at most
// limit + (N − 1) × slice; with slice = ⌊limit × OVERSHOOT / (N − 1)⌋ that is at most limit × 1.2. N is the
// number of nodes that synced in this minute or the last (each node heartbeats a bucket of its own). One node
// counts exactly: its view is the store's total plus its own unsynced count.
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { RateLimitCounts } from "./rate-limit-counts.ts";

export const WINDOW_MS = 60_000;
const SYNC_EVERY_MS = 1000;
/** Distinct clients counted per window; past it a new client is let through uncounted (and logged once). */
const MAX_CLIENTS = 200_000;
const WARN_EVERY_MS = 60_000;
/** Clients seen here this long ago or less learn their cluster totals on every sync. */
const RECENT_MS = 10_000;
/** How far past its limit a burst spread over several nodes may get (0.2: limit × 1.2). */
export const OVERSHOOT = 0.2;

interface RateLimits {
  /** Unpaid requests per client and minute, every route together; 0 turns the limit off. */
  perMin: number;
  /** Of those, requests to routes whose 402 costs work (`expensiveChallenge`); 0 turns it off. */
  expensivePerMin: number;
}

export interface RateLimitRefusal {
  /** The limit reached (requests a minute). */
  limit: number;
  /** True when it is the limit of routes whose 402 costs work. */
  expensive: boolean;
  /** Seconds until the window ends. */
  retryAfterSec: number;
}

interface ClientCount {
  /** Requests allowed here in this window, not yet added to the store. */
  unsynced: number;
  /** Requests being added to the store by a sync under way: still counted until the store's total includes them. */
  sending: number;
  /** The cluster's total as the store last answered it (this node's synced requests included). */
  cluster: number;
  expensiveUnsynced: number;
  expensiveSending: number;
  expensiveCluster: number;
  /** Epoch ms of its last request here: totals of recent clients are read back even without new counts. */
  seenAt: number;
}

/** Every request of the client known here: the store's total, what a sync is adding, what is not sent yet. */
const allCounted = (count: ClientCount) => count.cluster + count.sending + count.unsynced;
const expensiveCounted = (count: ClientCount) =>
  count.expensiveCluster + count.expensiveSending + count.expensiveUnsynced;

/** The cluster's totals as the store answered them (a total never goes down within a window). */
function learnTotals(clients: Array<[string, ClientCount, ...unknown[]]>, totals: Map<string, number>): void {
  for (const [client, count] of clients) {
    const all = totals.get(ALL + client);
    if (all !== undefined) count.cluster = Math.max(count.cluster, all);
    const expensive = totals.get(EXPENSIVE + client);
    if (expensive !== undefined) count.expensiveCluster = Math.max(count.expensiveCluster, expensive);
  }
}

interface WindowCounts {
  start: number;
  clients: Map<string, ClientCount>;
}

const ALL = "all:";
const EXPENSIVE = "expensive:";
/** Each node's heartbeat bucket: how many nodes share the counts. */
const NODE = "node:";
/** A client whose unsynced count reached its slice: its next request waits for a sync. */
const SYNC_FIRST = Symbol("sync first");

export class RateLimiter {
  private readonly counts: RateLimitCounts;
  private readonly limits: RateLimits;
  private readonly log: Logger;
  private current: WindowCounts = { start: 0, clients: new Map() };
  /** Windows that ended with counts not yet in the store. */
  private ended: WindowCounts[] = [];
  private pruneDue = false;
  private syncing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastWarnAt = 0;
  private readonly nodeId = randomUUID();
  /** Nodes sharing the counts, as the last sync found them (this one included). */
  private nodes = 1;

  constructor(store: Store, limits: RateLimits, log: Logger) {
    this.counts = new RateLimitCounts(store);
    this.limits = limits;
    this.log = log;
  }

  get enabled(): boolean {
    return this.limits.perMin > 0 || this.limits.expensivePerMin > 0;
  }

  start(everyMs = SYNC_EVERY_MS): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => void this.sync(), everyMs);
    this.timer.unref();
    void this.sync(); // the heartbeat: the other nodes learn of this one at once
  }

  /** Nodes sharing the counts as last learned (1 until the first sync). */
  get nodeCount(): number {
    return this.nodes;
  }

  /**
   * Requests one node may admit for a client beyond the cluster total it last learned: unbounded alone (its
   * count is exact), else its share of the allowed overshoot.
   */
  private slice(limit: number): number {
    if (this.nodes <= 1) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor((limit * OVERSHOOT) / (this.nodes - 1)));
  }

  /** Stops syncing after a last one, so that this node's counts are not lost to the others. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  /**
   * Counts one unpaid request of `client`: undefined when it may go on, else why not (and it is not counted).
   * A client that used its slice since the last sync (several nodes) is refused for a second; `admit` waits
   * for the sync instead.
   */
  take(client: string, expensive: boolean, now = Date.now()): RateLimitRefusal | undefined {
    const judged = this.judge(client, expensive, now);
    return judged === SYNC_FIRST
      ? this.refusal(this.limits.perMin || this.limits.expensivePerMin, expensive, now, 1)
      : judged;
  }

  /** `take`, waiting for a sync when this node used the client's slice of the cluster's limit. */
  async admit(client: string, expensive: boolean): Promise<RateLimitRefusal | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const judged = this.judge(client, expensive, Date.now());
      if (judged !== SYNC_FIRST) return judged;
      await this.sync();
    }
    return this.take(client, expensive);
  }

  /** True when `client` is over a limit now (nothing is counted). */
  over(client: string, expensive: boolean, now = Date.now()): boolean {
    if (now - this.current.start >= WINDOW_MS || now < this.current.start) return false;
    const count = this.current.clients.get(client);
    if (!count) return false;
    const { perMin, expensivePerMin } = this.limits;
    if (perMin > 0 && allCounted(count) >= perMin) return true;
    return expensive && expensivePerMin > 0 && expensiveCounted(count) >= expensivePerMin;
  }

  private judge(
    client: string,
    expensive: boolean,
    now: number,
  ): RateLimitRefusal | undefined | typeof SYNC_FIRST {
    const { perMin, expensivePerMin } = this.limits;
    const limitExpensive = expensive && expensivePerMin > 0;
    if (perMin === 0 && !limitExpensive) return undefined;
    if (now - this.current.start >= WINDOW_MS || now < this.current.start) this.roll(now);
    let count = this.current.clients.get(client);
    if (!count) {
      if (this.current.clients.size >= MAX_CLIENTS) {
        this.warn(
          { clients: MAX_CLIENTS },
          "rate limiter: too many clients this minute; new ones are not counted",
        );
        return undefined;
      }
      count = {
        unsynced: 0,
        sending: 0,
        cluster: 0,
        expensiveUnsynced: 0,
        expensiveSending: 0,
        expensiveCluster: 0,
        seenAt: now,
      };
      this.current.clients.set(client, count);
    }
    count.seenAt = now;
    if (perMin > 0 && allCounted(count) >= perMin) return this.refusal(perMin, false, now);
    if (limitExpensive && expensiveCounted(count) >= expensivePerMin)
      return this.refusal(expensivePerMin, true, now);
    if (
      (perMin > 0 && count.unsynced >= this.slice(perMin)) ||
      (limitExpensive && count.expensiveUnsynced >= this.slice(expensivePerMin))
    )
      return SYNC_FIRST;
    count.unsynced++;
    if (expensive) count.expensiveUnsynced++;
    return undefined;
  }

  /** Adds this node's new counts to the store and takes the cluster's totals back (one at a time). */
  sync(): Promise<void> {
    this.syncing ??= this.syncAll().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private refusal(limit: number, expensive: boolean, now: number, retryAfterSec?: number): RateLimitRefusal {
    return {
      limit,
      expensive,
      retryAfterSec: retryAfterSec ?? Math.max(1, Math.ceil((this.current.start + WINDOW_MS - now) / 1000)),
    };
  }

  private roll(now: number): void {
    if (this.current.clients.size > 0) this.ended.push(this.current);
    this.current = { start: now - (now % WINDOW_MS), clients: new Map() };
    this.pruneDue = true;
  }

  private async syncAll(): Promise<void> {
    await this.heartbeat().catch((error: unknown) =>
      this.warn({ err: String(error) }, "rate limiter: cannot count the nodes sharing the limits"),
    );
    const windows = [...this.ended, this.current];
    this.ended = [];
    for (const window of windows) {
      try {
        await this.syncWindow(window);
      } catch (error) {
        // Counts stay unsynced and go with the next sync; meanwhile every node still limits on its own.
        if (window !== this.current && window.start >= this.current.start - WINDOW_MS)
          this.ended.push(window);
        this.warn({ err: String(error) }, "rate limiter: cannot sync counts with the store");
      }
    }
    if (this.pruneDue) {
      this.pruneDue = false;
      await this.counts
        .prune(this.current.start - WINDOW_MS)
        .catch((error: unknown) =>
          this.warn({ err: String(error) }, "rate limiter: cannot prune old windows"),
        );
    }
  }

  private async syncWindow(window: WindowCounts, now = Date.now()): Promise<void> {
    const added = new Map<string, number>();
    const taken: Array<[string, ClientCount, number, number]> = [];
    const reread: Array<[string, ClientCount]> = [];
    for (const [client, count] of window.clients) {
      if (count.unsynced === 0 && count.expensiveUnsynced === 0) {
        // Another node may have taken this client over its limit since: learn it before its next request.
        if (window === this.current && now - count.seenAt <= RECENT_MS && !this.overAll(count))
          reread.push([client, count]);
        continue;
      }
      if (count.unsynced > 0) added.set(ALL + client, count.unsynced);
      if (count.expensiveUnsynced > 0) added.set(EXPENSIVE + client, count.expensiveUnsynced);
      taken.push([client, count, count.unsynced, count.expensiveUnsynced]);
      count.sending += count.unsynced;
      count.expensiveSending += count.expensiveUnsynced;
      count.unsynced = 0;
      count.expensiveUnsynced = 0;
    }
    const sent = (failed: boolean) => {
      for (const [, count, unsynced, expensiveUnsynced] of taken) {
        count.sending -= unsynced;
        count.expensiveSending -= expensiveUnsynced;
        if (failed) {
          count.unsynced += unsynced;
          count.expensiveUnsynced += expensiveUnsynced;
        }
      }
    };
    let totals: Map<string, number>;
    try {
      totals = added.size > 0 ? await this.counts.add(window.start, added) : new Map();
    } catch (error) {
      sent(true);
      throw error;
    }
    learnTotals(taken, totals);
    sent(false);
    if (reread.length > 0) {
      const read = await this.counts.totals(
        window.start,
        reread.flatMap(([client]) => [ALL + client, EXPENSIVE + client]),
      );
      learnTotals(reread, read);
    }
  }

  /** Counts this node in the current window and learns how many nodes counted in it or the last one. */
  private async heartbeat(now = Date.now()): Promise<void> {
    const windowStart = now - (now % WINDOW_MS);
    await this.counts.add(windowStart, new Map([[NODE + this.nodeId, 1]]));
    this.nodes = Math.max(1, await this.counts.distinct(NODE, windowStart - WINDOW_MS));
  }

  /** Over the general limit already: refused until the window ends, whatever the others count. */
  private overAll(count: ClientCount): boolean {
    return this.limits.perMin > 0 && allCounted(count) >= this.limits.perMin;
  }

  private warn(fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    this.log.warn(fields, message);
  }
}
