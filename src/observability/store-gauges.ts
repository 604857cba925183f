// Gauges read from the store when Prometheus scrapes: job queue depth by queue and by lane (with the oldest due
// job's wait), each warmer's last success, and batch-settlement's channels (batch-gauges.ts). One
// read serves every gauge and every scrape for a few seconds, so frequent scrapes cost the store little.
import { Gauge, type Registry } from "prom-client";
import type { Warmer } from "../catalog/product.ts";
import type { LaneFigures } from "../store/jobs.ts";
import type { JobState } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { registerBatchGauges } from "./batch-gauges.ts";

const SNAPSHOT_MAX_AGE_MS = 5000;
const REPORTED_STATES: JobState[] = ["queued", "running", "dead"];

interface Snapshot {
  ok: boolean;
  jobs: Array<{ queue: string; state: string; count: number }>;
  lanes: LaneFigures[];
  /** Epoch ms of each warmer's last successful run; null when it never succeeded. */
  warmers: Array<{ warmer: string; lastSuccessMs: number | null }>;
}

export class StoreGauges {
  private readonly store: Store;
  private readonly warmers: Warmer[];
  private readonly queues: string[];
  private cached: { at: number; snapshot: Promise<Snapshot> } | undefined;

  /** `queues` and `warmers` are shown even while they have nothing to report (0 jobs, never succeeded). */
  constructor(store: Store, queues: string[], warmers: Warmer[]) {
    this.store = store;
    this.queues = queues;
    this.warmers = warmers;
  }

  register(registers: Registry[]): void {
    const read = () => this.snapshot();
    new Gauge({
      name: "paycall_store_up",
      help: "1 when the store answered the last scrape's queries, else 0",
      registers,
      async collect() {
        this.set((await read()).ok ? 1 : 0);
      },
    });
    const health = this.store.health;
    new Gauge({
      name: "paycall_store_writable",
      help: "1 while this node takes paid calls' store writes; 0 while it refuses them (its database unreachable or its disk full: /ready says which)",
      registers,
      collect() {
        this.set(health.down() ? 0 : 1);
      },
    });
    new Gauge({
      name: "paycall_store_writes_waiting",
      help: "Ledger outcomes and claim releases a paid call could not write when the store went away, written once it is back",
      registers,
      collect() {
        this.set(health.waiting);
      },
    });
    const queues = this.queues;
    new Gauge({
      name: "paycall_jobs",
      help: "Jobs in the store's queue by queue and state (queued includes retries waiting for their time; dead jobs stay until requeued)",
      labelNames: ["queue", "state"],
      registers,
      async collect() {
        const snapshot = await read();
        this.reset();
        for (const queue of queues) for (const state of REPORTED_STATES) this.set({ queue, state }, 0);
        for (const { queue, state, count } of snapshot.jobs) this.set({ queue, state }, count);
      },
    });
    new Gauge({
      name: "paycall_job_lane_depth",
      help: "Jobs due and waiting for a worker slot, by lane (fetch: items buyers asked for; warm; bulk imports), cluster-wide",
      labelNames: ["lane"],
      registers,
      async collect() {
        const snapshot = await read();
        this.reset();
        for (const { lane, due } of snapshot.lanes) this.set({ lane }, due);
      },
    });
    new Gauge({
      name: "paycall_job_lane_running",
      help: "Jobs running under a live lease, by lane, cluster-wide",
      labelNames: ["lane"],
      registers,
      async collect() {
        const snapshot = await read();
        this.reset();
        for (const { lane, running } of snapshot.lanes) this.set({ lane }, running);
      },
    });
    new Gauge({
      name: "paycall_job_lane_oldest_due_age_seconds",
      help: "How long the oldest due job of each lane has been waiting for a slot (0: none waiting)",
      labelNames: ["lane"],
      registers,
      async collect() {
        const snapshot = await read();
        this.reset();
        for (const { lane, oldestDueAgeSec } of snapshot.lanes) this.set({ lane }, oldestDueAgeSec ?? 0);
      },
    });
    new Gauge({
      name: "paycall_warmer_last_success_age_seconds",
      help: "Seconds since each warmer last succeeded on any node (+Inf: never)",
      labelNames: ["warmer"],
      registers,
      async collect() {
        const snapshot = await read();
        this.reset();
        const now = Date.now();
        for (const { warmer, lastSuccessMs } of snapshot.warmers) {
          this.set({ warmer }, lastSuccessMs === null ? Infinity : Math.max(0, (now - lastSuccessMs) / 1000));
        }
      },
    });
    const periods = new Gauge({
      name: "paycall_warmer_period_seconds",
      help: "How often each warmer is meant to run (alert when the last success is much older)",
      labelNames: ["warmer"],
      registers,
    });
    for (const warmer of this.warmers) periods.set({ warmer: warmer.name }, warmer.everyMs / 1000);
    registerBatchGauges(registers, this.store);
  }

  private snapshot(): Promise<Snapshot> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= SNAPSHOT_MAX_AGE_MS) {
      this.cached = { at: now, snapshot: this.read() };
    }
    return this.cached.snapshot;
  }

  private async read(): Promise<Snapshot> {
    try {
      const [jobs, lanes, warmers] = await Promise.all([
        this.store.db
          .selectFrom("jobs")
          .select(["queue", "state", (eb) => eb.fn.countAll<number>().as("n")])
          .where("state", "in", REPORTED_STATES)
          .groupBy(["queue", "state"])
          .execute(),
        this.store.jobs.laneFigures(),
        Promise.all(this.warmers.map((w) => this.lastSuccess(w.name))),
      ]);
      return {
        ok: true,
        jobs: jobs.map((r) => ({ queue: r.queue, state: r.state, count: Number(r.n) })),
        lanes,
        warmers: this.warmers.map((w, i) => ({ warmer: w.name, lastSuccessMs: warmers[i] ?? null })),
      };
    } catch {
      return { ok: false, jobs: [], lanes: [], warmers: [] };
    }
  }

  /** The newest successful run only: warmer_runs keeps every run, so no scan of the whole table. */
  private async lastSuccess(warmer: string): Promise<number | null> {
    const row = await this.store.db
      .selectFrom("warmer_runs")
      .select("finished_at")
      .where("warmer", "=", warmer)
      .where("ok", "=", 1)
      .orderBy("started_at", "desc")
      .limit(1)
      .executeTakeFirst();
    return row?.finished_at ? Date.parse(row.finished_at) : null;
  }
}
