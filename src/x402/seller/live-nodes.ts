// Which serving processes are alive, so that a payment's pending row can be known abandoned at once: each
// process holds a lease named after itself, renewed every few seconds, whose holder is when it started. A
// pending row written before every live process started was written by one that has stopped (a crash), so the
// buyer's retry asks the chain at once instead of waiting for the sweep.
import { randomUUID } from "node:crypto";
import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";

const NODE_LEASE_PREFIX = "serving-node:";
const RENEW_EVERY_MS = 3000;
/** A process that stopped is taken for dead this long after its last renewal. */
const NODE_LEASE_TTL_MS = 10_000;
/** Clocks of two nodes may differ this much: a row this close to a start is not judged by it. */
const CLOCK_MARGIN_MS = 1000;

export class LiveNodes {
  private readonly store: Store;
  private readonly log: Logger;
  private readonly name = NODE_LEASE_PREFIX + randomUUID();
  private readonly startedAt = new Date().toISOString();
  private timer: NodeJS.Timeout | undefined;

  constructor(store: Store, log: Logger) {
    this.store = store;
    this.log = log;
  }

  /** Takes this process's lease now and renews it until `stop`. */
  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => void this.renew(), RENEW_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.store.leases.release(this.name, this.startedAt).catch(() => {});
  }

  private async renew(): Promise<void> {
    await this.store.leases
      .acquire(this.name, this.startedAt, NODE_LEASE_TTL_MS)
      .catch((e: unknown) => this.log.warn({ err: String(e) }, "could not renew this node's lease"));
  }
}

/**
 * True when the process that wrote a row at `createdAt` has stopped: every live serving process started after
 * it. False when that cannot be known (no live lease read, or one started before the row).
 */
export async function writerStopped(store: Store, createdAt: string, now = new Date()): Promise<boolean> {
  const starts = await store.leases.liveHolders(NODE_LEASE_PREFIX, now).catch(() => []);
  if (starts.length === 0) return false;
  const written = Date.parse(createdAt);
  return starts.every((start) => Date.parse(start) > written + CLOCK_MARGIN_MS);
}

/** How many serving processes hold a live lease now (this one included while it runs). */
export async function liveNodeCount(store: Store, now = new Date()): Promise<number> {
  return (await store.leases.liveHolders(NODE_LEASE_PREFIX, now)).length;
}
