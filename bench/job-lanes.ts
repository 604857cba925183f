// How long a buyer waits for an uncached item while every warmer is due and a bulk import runs, with job lanes
// with the one line of jobs paycall had before (WORKER_LANES=1, one slot) and with one line of as many slots as
// the lanes have, in the same run: on SQLite (one
// worker) and on PostgreSQL (two workers on one database). Stand-in upstreams answer in 2–5 s, and one request
// in ten hangs until the client's 8 s timeout. The aim: a fetch a buyer's request queued is served within about a
// minute, p95 ≤ 60 s.
//
// Every duration is scaled by BENCH_LANES_SCALE_PERCENT (default 10: a 2–5 s answer takes 0.2–0.5 s, the window
// of 200 s runs in 20 s) and figures are printed in unscaled seconds. Knobs:
//   BENCH_LANES_SCALE_PERCENT  1–100, default 10
//   BENCH_LANES_WINDOW_SECONDS unscaled length of each run, default 200 (buyers arrive over its first 60 %)
//   BENCH_LANES_BUYERS         buyer fetches per run, default 30
//   BENCH_LANES_WARMERS        warmers due at start, default 12 (each makes 6 requests to an upstream of its own)
//   BENCH_PG_URL               PostgreSQL (a scratch schema per run); the PostgreSQL runs are skipped if it fails
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServiceContext } from "../src/catalog/family-context.ts";
import { type Family, jobKind, type Warmer } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { Worker } from "../src/jobs/worker.ts";
import { createLogger } from "../src/log.ts";
import { openStore, type Store } from "../src/store/store.ts";
import type { UpstreamSpec } from "../src/upstream/client.ts";
import { UpstreamRegistry } from "../src/upstream/registry.ts";
import { knob, percentile, seededRandom } from "./common.ts";
import { onScratchPostgres } from "./scratch-postgres.ts";

const SCALE = knob("BENCH_LANES_SCALE_PERCENT", 10, 1, 100) / 100;
const WINDOW_S = knob("BENCH_LANES_WINDOW_SECONDS", 200, 30, 3600);
const BUYERS = knob("BENCH_LANES_BUYERS", 30, 5, 1000);
const WARMERS = knob("BENCH_LANES_WARMERS", 12, 0, 100);
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const AIM_S = 60;

/** Unscaled milliseconds → real milliseconds of this run. */
const scaled = (ms: number) => Math.max(1, Math.round(ms * SCALE));

/** One stand-in upstream for every name: answers after 2–5 s (scaled); one request in ten never answers. */
async function standInUpstream(): Promise<{ url: string; close: () => void }> {
  const { random } = seededRandom(7);
  const server = http.createServer((req, res) => {
    const hang = random() < 0.1;
    const timer = setTimeout(
      () => res.end(JSON.stringify({ path: req.url })),
      hang ? scaled(60_000) : scaled(2000 + random() * 3000),
    );
    res.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function upstream(name: string, url: string): UpstreamSpec {
  return {
    name,
    defaultBaseUrl: url,
    maxConcurrent: 4,
    minIntervalMs: 0,
    timeoutMs: scaled(8000),
    retries: 0,
  };
}

/** The family of the run: buyers' item fetches, warmers that are all due, an import that outlasts the run. */
function benchFamily(url: string): Family {
  const warmers: Warmer[] = Array.from({ length: WARMERS }, (_, i) => ({
    name: `bench.warm-${i}`,
    everyMs: 3600_000,
    run: async (ctx) => {
      const client = ctx.upstreams.client(upstream(`bench-warm-${i}`, url));
      let failed = 0;
      for (let page = 0; page < 6; page++) {
        await client.get({ path: `/warm/${i}/${page}`, background: true }).catch(() => failed++);
      }
      return { failed };
    },
  }));
  return {
    name: "bench",
    products: [],
    warmers,
    jobs: {
      "bench.item": jobKind(
        { timeLimitMs: scaled(120_000), retryBackoffMs: scaled(5000) },
        async (payload, ctx) => {
          const id = String((payload as { id: string }).id);
          const answer = await ctx.upstreams
            .client(upstream("bench-register", url))
            .get({ path: `/item/${id}` });
          await ctx.store.cache.put("bench-items", id, {
            body: answer.status,
            fetchedAt: new Date().toISOString(),
          });
        },
      ),
      "bench.import": jobKind({ lane: "bulk" }, async (_payload, ctx, job) => {
        const client = ctx.upstreams.client(upstream("bench-bulk", url));
        for (let part = 0; !job?.signal.aborted; part++) {
          await client.get({ path: `/bulk/${part}`, background: true }).catch(() => {});
        }
      }),
    },
  };
}

interface Outcome {
  waitsS: number[];
  unserved: number;
}

/** One run: every warmer due, the import running, buyers enqueueing fetches; the wait of each until served. */
async function run(stores: Store[], url: string, workerEnv: Record<string, string>): Promise<Outcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-bench-lanes-"));
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: "silent",
    UPSTREAMS: "live",
    WORKER_POLL_MS: String(scaled(1000)),
    SCHEDULE_EVERY_MS: "3600000",
    JOB_LEASE_MS: String(Math.max(1000, scaled(60_000))),
    ...workerEnv,
  });
  const family = benchFamily(url);
  const workers = stores.map((store) => {
    const ctx: ServiceContext = {
      config,
      store,
      upstreams: new UpstreamRegistry(config, undefined, undefined, store.upstreamBudgets),
      log: createLogger("silent"),
    };
    return new Worker(ctx, [family]);
  });
  const first = stores[0] as Store;
  // The import is under way before anything else is due, as a monthly release import would be.
  await first.jobs.enqueue("bench.import", "release", {}, { runAt: new Date(Date.now() - 1000) });
  for (const worker of workers) worker.start();

  const { random } = seededRandom(11);
  const windowMs = scaled(WINDOW_S * 1000);
  const arrivals = Array.from({ length: BUYERS }, () => random() * windowMs * 0.6).sort((a, b) => a - b);
  const started = Date.now();
  const waits: number[] = [];
  const buyers = arrivals.map(async (at, i) => {
    await sleep(at);
    const store = stores[i % stores.length] as Store;
    const id = `CZ-${27_000_000 + i}`;
    const asked = Date.now();
    await store.jobs.enqueue("bench.item", id, { id });
    while (Date.now() - started < windowMs) {
      if (await store.cache.get("bench-items", id)) {
        waits.push((Date.now() - asked) / SCALE / 1000);
        return;
      }
      await sleep(scaled(1000));
    }
  });
  await Promise.all(buyers);
  await Promise.all(workers.map((worker) => worker.stop(0)));
  fs.rmSync(dir, { recursive: true, force: true });
  return { waitsS: waits.sort((a, b) => a - b), unserved: BUYERS - waits.length };
}

function describeOutcome(label: string, outcome: Outcome): { p95: number; line: string } {
  const served = outcome.waitsS.length;
  const p95 = outcome.unserved > BUYERS * 0.05 ? Number.POSITIVE_INFINITY : percentile(outcome.waitsS, 95);
  const p50 = served > BUYERS / 2 ? percentile(outcome.waitsS, 50) : Number.POSITIVE_INFINITY;
  const show = (s: number) => (Number.isFinite(s) ? `${s.toFixed(1)} s` : `> ${WINDOW_S} s`);
  const verdict = p95 <= AIM_S ? "met" : "missed";
  return {
    p95,
    line: `  ${label.padEnd(44)} served ${String(served).padStart(3)}/${BUYERS}   p50 ${show(p50).padStart(9)}   p95 ${show(p95).padStart(9)}   aim p95 ≤ ${AIM_S} s: ${verdict}`,
  };
}

const LANES = { WORKER_LANES: "3" };
const ONE_LINE = { WORKER_LANES: "1", WORKER_FETCH_CONCURRENCY: "1" };
/** As many slots as the three lanes have together, in one line: what lanes add beyond concurrency. */
const ONE_WIDE_LINE = { WORKER_LANES: "1", WORKER_FETCH_CONCURRENCY: "7" };

async function compare(store: string, open: () => Promise<Store[]>, url: string): Promise<void> {
  console.log(`${store}:`);
  const results: number[] = [];
  for (const [label, env] of [
    ["lanes (fetch 4, warm 2, bulk 1 slots per node)", LANES],
    ["one line, one slot (before lanes)", ONE_LINE],
    ["one line, 7 slots (no lanes, as many slots)", ONE_WIDE_LINE],
  ] as const) {
    const stores = await open();
    try {
      const { p95, line } = describeOutcome(label, await run(stores, url, env));
      results.push(p95);
      console.log(line);
    } finally {
      for (const s of new Set(stores)) await s.close();
    }
  }
  const [lanes, before] = results as [number, number, number];
  if (Number.isFinite(before)) console.log(`  one line's p95 ÷ lanes' p95: ${(before / lanes).toFixed(1)}×`);
  else
    console.log(
      `  one line: more than 5 % of the buyers' fetches were not served within the ${WINDOW_S} s run`,
    );
}

async function main(): Promise<void> {
  const stub = await standInUpstream();
  console.log(
    `Job lanes: a buyer's fetch (enqueued on a miss) until the item is cached, while ${WARMERS} warmers are due and a bulk import runs;`,
  );
  console.log(
    `upstreams answer in 2–5 s, one in ten times out at 8 s. ${BUYERS} buyers per run over ${WINDOW_S} s, timings run at ${SCALE * 100} % and are shown unscaled. Aim: p95 ≤ ${AIM_S} s.`,
  );
  const started = Date.now();
  try {
    const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-bench-lanes-db-"));
    let n = 0;
    await compare(
      "SQLite, one worker",
      async () => [await openStore({ kind: "sqlite", file: path.join(sqliteDir, `run-${n++}.db`) })],
      stub.url,
    );
    fs.rmSync(sqliteDir, { recursive: true, force: true });
    await onScratchPostgres(PG_URL, {}, async (store) => {
      const schema = (
        await store.db.selectNoFrom((eb) => eb.fn<string>("current_schema", []).as("s")).executeTakeFirst()
      )?.s;
      await compare(
        "PostgreSQL, two workers (two store connections) on one database",
        async () => {
          // Each run starts on empty tables; the second node opens its own pool on the same schema.
          await store.db.deleteFrom("jobs").execute();
          await store.db.deleteFrom("cache_documents").execute();
          await store.db.deleteFrom("warmer_runs").execute();
          await store.db.deleteFrom("upstream_slots").execute();
          const second = await openStore({ kind: "postgres", url: PG_URL, schema, poolSize: 4 });
          const first = await openStore({ kind: "postgres", url: PG_URL, schema, poolSize: 4 });
          return [first, second];
        },
        stub.url,
      );
    });
  } finally {
    stub.close();
  }
  console.log(`(${Math.round((Date.now() - started) / 1000)} s)`);
}

await main();
