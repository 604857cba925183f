// Benchmark of paid calls under concurrency with a facilitator at production latency: the stand-in facilitator
// (bench/servers/facilitator.ts, accepts every payment) answers verify after 200 ms and settle after 1 s, and N
// buyers, each a real @x402/fetch client with its own wallet signing real EIP-3009 payments
// (bench/servers/concurrency-load.ts, a second process on CPU 1), pay GET /v1/macro/ecb/fx one call after another.
// Contenders, started once and measured alternately in rounds (bench/rounds.ts): paycall on SQLite (one node),
// paycall on PostgreSQL (two nodes on one schema, buyers alternating between them), and the reference @x402/hono
// middleware (one node), all on CPU 0. Per run: paid calls/s, p50/p99 latency of a whole paid call (402 + paid
// retry), answers by status (503 counted as refused), errors, the servers' peak RSS and event-loop delay p99, how
// long a server's event loop waited for a CPU ("wait": other processes' time on a shared machine), and the load
// generator's longest event-loop stall ("lag": a generator that late sends requests the server times out).
// Aims, for paycall: at 100 buyers, throughput ≥ the reference's and p99 ≤ the facilitator's time + 150 ms; at
// 1,000 buyers, no errors other than 503, RSS ≤ 400 MB, event-loop delay p99 ≤ 50 ms. See bench/README.md.
//
//   npm run bench:concurrency   (BENCH_ROUNDS=5, BENCH_CONCURRENCY_BUYERS=100,1000, BENCH_CONCURRENCY_SECONDS=5,
//     BENCH_CONCURRENCY_WARMUP_SECONDS=2, BENCH_CONCURRENCY_DRAIN_SECONDS=15, BENCH_FACILITATOR_VERIFY_MS=200,
//     BENCH_FACILITATOR_SETTLE_MS=1000, BENCH_CONCURRENCY_VARIANTS=sqlite,postgres,
//     BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/postgres; PAID_CALLS_MAX_IN_FLIGHT is passed to paycall)
import { HEADERS_TIMEOUT_MS } from "../src/http/listen.ts";
import { knob, tableRow } from "./common.ts";
import {
  askWhatTheReferenceAsked,
  facilitatorStats,
  REFERENCE,
  ROUTE,
  startFacilitator,
  startPaycall,
  startReference,
} from "./paid-servers.ts";
import { dropSchema } from "./postgres-backends.ts";
import {
  cleanup,
  conversation,
  cpuTimes,
  PINNED,
  type RunningServer,
  rssBytes,
  runBench,
  runQueueWaitMs,
  spawnPinned,
  stopChild,
} from "./processes.ts";
import { type Contender, inRounds, median, perRoundRatios, ratioLine, spread, spreadText } from "./rounds.ts";

const ROUNDS = knob("BENCH_ROUNDS", 5, 1, 50);
const SECONDS = knob("BENCH_CONCURRENCY_SECONDS", 5, 1, 600);
const WARMUP_SECONDS = knob("BENCH_CONCURRENCY_WARMUP_SECONDS", 2, 0, 120);
const DRAIN_SECONDS = knob("BENCH_CONCURRENCY_DRAIN_SECONDS", 15, 1, 600);
const VERIFY_MS = knob("BENCH_FACILITATOR_VERIFY_MS", 200, 0, 60_000);
const SETTLE_MS = knob("BENCH_FACILITATOR_SETTLE_MS", 1000, 0, 60_000);
const BUYER_COUNTS = (process.env.BENCH_CONCURRENCY_BUYERS ?? "100,1000").split(",").map((text) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 5000)
    throw new Error(`BENCH_CONCURRENCY_BUYERS: each count must be an integer from 1 to 5000, got "${text}"`);
  return n;
});
const VARIANTS = (process.env.BENCH_CONCURRENCY_VARIANTS ?? "sqlite,postgres").split(",").map((name) => {
  if (name !== "sqlite" && name !== "postgres")
    throw new Error(`BENCH_CONCURRENCY_VARIANTS: unknown variant ${name}`);
  return name;
});
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** How long the servers may stay busy after a run (a queue of paid calls left behind) before the next one. */
const QUIET_WAIT_MS = 30_000;

/** The aims on paycall: latency and throughput at 100 buyers or fewer, robustness at 1,000 or more. */
const P99_AIM_MS = VERIFY_MS + SETTLE_MS + 150;
const RSS_AIM_MB = 400;
const EVENT_LOOP_AIM_MS = 50;

interface Contestant {
  name: string;
  nodes: RunningServer[];
}

interface Sample {
  paidPerSecond: number;
  /** null: at least that share of the calls did not finish. */
  p50Ms: number | null;
  p99Ms: number | null;
  statuses: Record<string, number>;
  failures: Record<string, number>;
  unfinished: number;
  /** The highest RSS of any of the contender's nodes during the run. */
  rssPeakBytes: number;
  /** The highest of the nodes' event-loop delay p99 over the run. */
  eventLoopP99Ms: number;
  /** The most any node's event loop waited for a CPU (runnable, not running), in ms per second of the run. */
  cpuWaitMsPerS: number;
  /** The load generator's CPU use over the run, in cores (near 1: the generator limits the figures). */
  loadCores: number;
  /** How long after the run the servers still had verify or settle calls under way. */
  busyAfterMs: number;
  /**
   * The load generator's longest event-loop delay: its buyers read answers, wrote requests and closed idle
   * connections that late. Past the server's header timeout (10 s) a buyer connects and sends nothing in time,
   * and the server closes the connection: socket errors then are the generator's, not the server's.
   */
  lagMaxMs: number;
}

/** Errors: anything but 200 and 503 (refused), connection failures, and calls still running after the drain. */
function errorsOf(s: Sample): number {
  const otherStatuses = Object.entries(s.statuses)
    .filter(([status]) => status !== "200" && status !== "503")
    .reduce((n, [, count]) => n + count, 0);
  return otherStatuses + Object.values(s.failures).reduce((a, b) => a + b, 0) + s.unfinished;
}

async function eventLoopP99(node: RunningServer): Promise<number> {
  const response = await fetch(node.info.eventLoopProbe as string);
  return ((await response.json()) as { p99Ms: number }).p99Ms;
}

/** Waits until the facilitator has had no verify or settle under way nor started for a second; the wait in ms. */
async function quiet(facilitatorUrl: string): Promise<number> {
  const started = Date.now();
  let last = await facilitatorStats(facilitatorUrl);
  let stillSince = Date.now();
  while (Date.now() - started < QUIET_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await facilitatorStats(facilitatorUrl);
    const moved =
      now.inFlight > 0 || now.calls.verify !== last.calls.verify || now.calls.settle !== last.calls.settle;
    last = now;
    if (moved) stillSince = Date.now();
    else if (Date.now() - stillSince >= 1000) return stillSince - started;
  }
  console.warn(`  WARNING: the servers were still paying ${QUIET_WAIT_MS / 1000} s after the run; going on`);
  return Date.now() - started;
}

async function measure(
  contestant: Contestant,
  buyers: number,
  ask: ReturnType<typeof conversation>,
  loadPid: number,
  facilitatorUrl: string,
): Promise<Sample> {
  await Promise.all(contestant.nodes.map(eventLoopP99)); // a new window for the probes
  let rssPeakBytes = 0;
  const sampler = setInterval(() => {
    for (const node of contestant.nodes) rssPeakBytes = Math.max(rssPeakBytes, rssBytes(node.pid) ?? 0);
  }, 100);
  const loadBefore = cpuTimes(loadPid);
  const waitBefore = contestant.nodes.map((node) => runQueueWaitMs(node.pid) ?? 0);
  const startedAt = performance.now();
  const result = (await ask({
    urls: contestant.nodes.map((node) => `${node.url}${ROUTE}`),
    buyers,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    drainSeconds: DRAIN_SECONDS,
  })) as Omit<Sample, "rssPeakBytes" | "eventLoopP99Ms" | "cpuWaitMsPerS" | "loadCores" | "busyAfterMs">;
  const elapsedS = (performance.now() - startedAt) / 1000;
  const loadAfter = cpuTimes(loadPid);
  const waited = contestant.nodes.map((node, i) => (runQueueWaitMs(node.pid) ?? 0) - (waitBefore[i] ?? 0));
  clearInterval(sampler);
  const eventLoop = await Promise.all(contestant.nodes.map(eventLoopP99));
  const loadUs =
    loadBefore && loadAfter
      ? loadAfter.userUs + loadAfter.systemUs - loadBefore.userUs - loadBefore.systemUs
      : 0;
  return {
    ...result,
    rssPeakBytes,
    eventLoopP99Ms: Math.max(...eventLoop),
    cpuWaitMsPerS: Math.max(...waited) / elapsedS,
    loadCores: loadUs / 1e6 / elapsedS,
    busyAfterMs: await quiet(facilitatorUrl),
  };
}

/** Milliseconds as seconds; null or infinity (calls still running after the drain) as "unfinished". */
const seconds = (ms: number | null) =>
  ms === null || !Number.isFinite(ms) ? "unfinished" : (ms / 1000).toFixed(2);
const sum = (records: Record<string, number>[]) => {
  const total: Record<string, number> = {};
  for (const record of records)
    for (const [key, n] of Object.entries(record)) total[key] = (total[key] ?? 0) + n;
  return total;
};

const withUnit = (ms: number | null) =>
  ms === null || !Number.isFinite(ms) ? "unfinished" : `${seconds(ms)} s`;

/** A percentile in ms, an unfinished one as infinity (it took longer than the drain allowed). */
const p50Of = (s: Sample) => s.p50Ms ?? Number.POSITIVE_INFINITY;
const p99Of = (s: Sample) => s.p99Ms ?? Number.POSITIVE_INFINITY;

function report(buyers: number, results: Map<string, Sample[]>): void {
  const widths = [28, 20, 7, 7, 19, 8, 7, 6, 8, 15, 10, 6, 8];
  console.log(
    `\n${buyers} buyers: medians over ${ROUNDS} rounds of ${SECONDS} s (range in brackets; totals over all rounds)`,
  );
  console.log(
    tableRow(
      [
        "contender",
        "paid calls/s",
        "× ref.",
        "p50 s",
        "p99 s",
        "refused",
        "errors",
        "busy s",
        "RSS MB",
        "loop p99 ms",
        "wait ms/s",
        "load",
        "lag s",
      ],
      widths,
    ),
  );
  for (const [name, samples] of results) {
    const ratios = perRoundRatios(results, name, REFERENCE, (s) => s.paidPerSecond);
    const p99 = spread(samples.map(p99Of));
    console.log(
      tableRow(
        [
          name,
          spreadText(
            samples.map((s) => s.paidPerSecond),
            1,
          ),
          median(ratios).toFixed(2),
          seconds(median(samples.map(p50Of))),
          Number.isFinite(p99.min)
            ? `${seconds(p99.median)} (${seconds(p99.min)}–${seconds(p99.max)})`
            : "unfinished",
          String(samples.reduce((n, s) => n + (s.statuses["503"] ?? 0), 0)),
          String(samples.reduce((n, s) => n + errorsOf(s), 0)),
          (median(samples.map((s) => s.busyAfterMs)) / 1000).toFixed(1),
          (Math.max(...samples.map((s) => s.rssPeakBytes)) / 2 ** 20).toFixed(0),
          spreadText(samples.map((s) => s.eventLoopP99Ms)),
          median(samples.map((s) => s.cpuWaitMsPerS)).toFixed(0),
          median(samples.map((s) => s.loadCores)).toFixed(2),
          (Math.max(...samples.map((s) => s.lagMaxMs)) / 1000).toFixed(1),
        ],
        widths,
      ),
    );
  }
  for (const [name, samples] of results) {
    const other = { ...sum(samples.map((s) => s.statuses)), ...sum(samples.map((s) => s.failures)) };
    delete other["200"];
    const unfinished = samples.reduce((n, s) => n + s.unfinished, 0);
    if (Object.keys(other).length || unfinished)
      console.log(
        `  ${name}: ${Object.entries(other)
          .map(([what, n]) => `${what} × ${n}`)
          .join(
            ", ",
          )}${unfinished ? `${Object.keys(other).length ? ", " : ""}unfinished after the drain × ${unfinished}` : ""}`,
      );
  }
  console.log("");
  for (const [name, samples] of results) {
    if (name === REFERENCE) continue;
    if (buyers <= 100) {
      const ratios = perRoundRatios(results, name, REFERENCE, (s) => s.paidPerSecond);
      console.log(ratioLine(`${name}: paid calls/s / the reference's`, ratios, { atLeast: 1 }));
      const p99 = median(samples.map(p99Of));
      console.log(
        `${name}: p99 ${withUnit(p99)} (median of the rounds); aim ≤ ${(P99_AIM_MS / 1000).toFixed(2)} s ` +
          `(the facilitator's ${VERIFY_MS + SETTLE_MS} ms + 150 ms): ${p99 <= P99_AIM_MS ? "met" : "NOT met"} by the median`,
      );
    }
    if (buyers >= 1000) {
      const errors = samples.reduce((n, s) => n + errorsOf(s), 0);
      const rssMb = Math.max(...samples.map((s) => s.rssPeakBytes)) / 2 ** 20;
      const loop = median(samples.map((s) => s.eventLoopP99Ms));
      console.log(
        `${name}: errors other than 503, all rounds: ${errors}; aim 0: ${errors === 0 ? "met" : "NOT met"}`,
      );
      console.log(
        `${name}: peak RSS of a node, all rounds: ${rssMb.toFixed(0)} MB; aim ≤ ${RSS_AIM_MB} MB: ${rssMb <= RSS_AIM_MB ? "met" : "NOT met"}`,
      );
      console.log(
        `${name}: event-loop delay p99 ${loop.toFixed(0)} ms (median of the rounds); aim ≤ ${EVENT_LOOP_AIM_MS} ms: ` +
          `${loop <= EVENT_LOOP_AIM_MS ? "met" : "NOT met"} by the median`,
      );
    }
  }
  if ([...results.values()].some((samples) => median(samples.map((s) => s.loadCores)) > 0.85))
    console.log(
      "(the load generator used most of its core in some runs: those figures may be the generator's limit)",
    );
  const lagMaxMs = Math.max(...[...results.values()].flat().map((s) => s.lagMaxMs));
  if (lagMaxMs >= HEADERS_TIMEOUT_MS)
    console.log(
      `(the load generator's event loop stalled up to ${(lagMaxMs / 1000).toFixed(1)} s: its buyers sent requests ` +
        `too late for the server's ${HEADERS_TIMEOUT_MS / 1000} s header timeout; socket errors in those runs are the generator's)`,
    );
  if (ROUNDS < 5)
    console.log(`(${ROUNDS} round(s): a check that the bench runs, not a figure; figures take ≥ 5)`);
}

async function main(): Promise<void> {
  if (!PINNED)
    console.warn("WARNING: taskset is missing or fewer than 2 CPUs: servers and buyers share cores.");
  console.log(
    `paid-concurrency bench: GET ${ROUTE} paid by ${BUYER_COUNTS.join(" / ")} concurrent @x402/fetch buyers; facilitator ` +
      `verify ${VERIFY_MS} ms, settle ${SETTLE_MS} ms; ${ROUNDS} rounds of ${WARMUP_SECONDS} s ramp + ${SECONDS} s measured ` +
      `(+ up to ${DRAIN_SECONDS} s drain); servers ${PINNED ? "on CPU 0" : "unpinned"}, buyers and facilitator ` +
      `${PINNED ? "on CPU 1" : "unpinned"}` +
      (process.env.PAID_CALLS_MAX_IN_FLIGHT
        ? `; PAID_CALLS_MAX_IN_FLIGHT=${process.env.PAID_CALLS_MAX_IN_FLIGHT}`
        : ""),
  );
  const facilitator = await startFacilitator(VERIFY_MS, SETTLE_MS);
  const contestants: Contestant[] = [];
  const schema = `bench_concurrency_${process.pid}`;
  let firstPaycall: RunningServer | undefined;
  if (VARIANTS.includes("sqlite")) {
    firstPaycall = await startPaycall("paycall, SQLite", facilitator.url);
    contestants.push({ name: "paycall, SQLite, 1 node", nodes: [firstPaycall] });
  }
  const usePostgres = VARIANTS.includes("postgres") && PG_URL !== "none";
  try {
    if (usePostgres) {
      const env = { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema };
      const a = await startPaycall("paycall, PostgreSQL, node a", facilitator.url, env);
      const b = await startPaycall("paycall, PostgreSQL, node b", facilitator.url, env);
      firstPaycall ??= a;
      contestants.push({ name: "paycall, PostgreSQL, 2 nodes", nodes: [a, b] });
    }
    if (!firstPaycall) throw new Error("no paycall variant chosen");
    contestants.push({ name: REFERENCE, nodes: [await startReference(facilitator.url, firstPaycall.url)] });
    await askWhatTheReferenceAsked(
      contestants.flatMap((c) => c.nodes).flatMap((node) => (node === firstPaycall ? [] : [node.url])),
    );

    const load = spawnPinned(1, ["bench/servers/concurrency-load.ts"]);
    const ask = conversation(load);
    for (const buyers of BUYER_COUNTS) {
      const contenders: Contender<Sample>[] = contestants.map((contestant) => ({
        name: contestant.name,
        measure: () => measure(contestant, buyers, ask, load.pid as number, facilitator.url),
      }));
      const results = await inRounds(contenders, ROUNDS, (round, these) =>
        console.log(
          `${buyers} buyers, round ${round}/${ROUNDS}: ${[...these]
            .map(([name, s]) => `${name} ${s.paidPerSecond.toFixed(1)}/s p99 ${withUnit(s.p99Ms)}`)
            .join(" · ")}`,
        ),
      );
      report(buyers, results);
    }
  } finally {
    for (const contestant of contestants) for (const node of contestant.nodes) await stopChild(node.child);
    if (usePostgres) await dropSchema(PG_URL, schema);
    await cleanup();
  }
}

runBench(main);
