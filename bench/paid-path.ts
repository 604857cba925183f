// Benchmark of the paid path: server CPU per paid call (user and kernel, from /proc), with a loopback
// facilitator in another process (bench/servers/facilitator.ts accepts every payment, so the figure is the
// seller's own work). paycall on SQLite and on PostgreSQL, and the reference @x402/hono middleware with the
// SDK's default HTTP facilitator client doing the same verify + settle, given paycall's extensions and 402 body (so
// that its buyers echo the same PAYMENT-SIGNATURE; the table shows its size). All three are started once and
// measured alternately in rounds (bench/rounds.ts). Two workloads on each (bench/servers/paid-load.ts): "fetch",
// what @x402/fetch sends (the unpaid request, its 402, the paid retry), which is what buyers do; and "pre-signed",
// the paid request alone (the best case). Servers on CPU 0; the buyers (signatures made before the clock starts)
// and the facilitator on CPU 1. Aim: the fetch workload at ≤ 0.5 of the reference's CPU per call on SQLite, ≤ 0.6 on
// PostgreSQL, by the median of the per-round ratios. PostgreSQL's own CPU per call (its backends serving paycall) is
// printed beside it, outside the aim. "paycall, SQLite, Solana" is the SQLite node selling on Solana only, its
// buyers paying with @x402/svm's exact client (one signed transaction per call) through the same stand-in
// facilitator, which also answers its Solana RPC reads: the seller's extra work for a Solana payment (decoding
// the transaction for its identity and its blockhash's life) beside Base's, in the same rounds (BENCH_SOLANA=0
// leaves it out).
//
//   node_modules/.bin/node bench/paid-path.ts   (BENCH_ROUNDS=5, BENCH_PAID_CALLS=1000 per round,
//     BENCH_PAID_WARMUP=400 once, BENCH_PAID_BUYERS=8, BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/postgres;
//     BENCH_PG_URL=none skips PG; BENCH_CPU_PROF=<dir> writes CPU profiles of the paycall children, sampled
//     every BENCH_CPU_PROF_INTERVAL µs (1000);
//     BENCH_PAID_WORKLOADS=fetch runs only those workloads; BENCH_STATEMENTS=1 also counts the SQL statements per
//     paid call, by kind; BENCH_BASELINE_NODE_FLAGS="<flags>" gives the baseline nodes more node flags (a flag's
//     effect in the same rounds); BENCH_BASELINE=<checkout> adds "paycall, SQLite, baseline" (and the PostgreSQL
//     baseline), the nodes run from another checkout of the repository with node_modules, for a before/after in
//     the same rounds)
import fs from "node:fs";
import path from "node:path";
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
import { BackendCpu, dropSchema, withApplicationName } from "./postgres-backends.ts";
import {
  cleanup,
  conversation,
  cpuTimes,
  PINNED,
  ROOT,
  type RunningServer,
  runBench,
  scratchDir,
  spawnPinned,
  stopChild,
} from "./processes.ts";
import { type Contender, inRounds, median, perRoundRatios, ratioLine, spreadText } from "./rounds.ts";

const ROUNDS = knob("BENCH_ROUNDS", 5, 1, 50);
const CALLS = knob("BENCH_PAID_CALLS", 1000, 50, 100_000);
const WARMUP = knob("BENCH_PAID_WARMUP", 400, 0, 100_000);
const BUYERS = knob("BENCH_PAID_BUYERS", 8, 1, 256);
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** The aim: paycall's CPU per call of the fetch workload at most this share of the reference's, by store. */
const aimRatio = (server: string) => (server.includes("PostgreSQL") ? 0.6 : 0.5);

const WORKLOADS = {
  fetch: "@x402/fetch: 402 + paid retry",
  presigned: "pre-signed paid request",
} as const;
type Workload = keyof typeof WORKLOADS;
const CHOSEN = (process.env.BENCH_PAID_WORKLOADS?.split(",") ?? Object.keys(WORKLOADS)).map((name) => {
  if (!(name in WORKLOADS)) throw new Error(`BENCH_PAID_WORKLOADS: unknown workload ${name}`);
  return name as Workload;
});
/** BENCH_STATEMENTS=1: the paycall children count their SQL statements (bench/servers/count-statements.ts). */
const COUNT_STATEMENTS = process.env.BENCH_STATEMENTS === "1";
const SOLANA_ROW = process.env.BENCH_SOLANA !== "0";
const SOLANA_SERVER = "paycall, SQLite, Solana";
const BASELINE = process.env.BENCH_BASELINE?.trim();
/** BENCH_BASELINE_NODE_FLAGS: node flags for the baseline nodes only (a flag's effect, measured in the same rounds). */
const BASELINE_NODE_FLAGS = process.env.BENCH_BASELINE_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
const BASELINE_SERVER = "paycall, SQLite, baseline";
const PG_BASELINE_SERVER = "paycall, PostgreSQL, baseline";
/** Any valid Solana address to be paid (the stand-in facilitator moves nothing). */
const PAY_TO_SOLANA = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

type Ask = ReturnType<typeof conversation>;

interface Sample {
  statuses: Record<string, number>;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  signatureBytes: number;
  userUsPerCall: number;
  kernelUsPerCall: number;
  /** CPU of the PostgreSQL backends serving this server, per call (PostgreSQL contender only). */
  databaseUsPerCall?: number;
  facilitatorConnections: number;
  /** SQL statement counts over the run by kind, when counted. */
  statements?: Record<string, number>;
}
type RoundResult = Partial<Record<Workload, Sample>>;

interface Server {
  running: RunningServer;
  /** The application_name its PostgreSQL backends carry. */
  databaseApplication?: string;
}

const cpuOf = (s: Sample) => s.userUsPerCall + s.kernelUsPerCall;

/** The statement counts of a child started with the counting preload (it writes them on SIGUSR2). */
async function statementCounts(server: RunningServer): Promise<Record<string, number> | undefined> {
  const file = server.info.statementsFile as string | undefined;
  if (!file) return undefined;
  fs.rmSync(file, { force: true });
  process.kill(server.pid, "SIGUSR2");
  for (let waited = 0; waited < 5000; waited += 20) {
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, number>;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the paycall child did not write its statement counts");
}

function difference(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([kind, n]) => [kind, n - (before[kind] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

async function facilitatorConnections(url: string): Promise<number> {
  return (await facilitatorStats(url)).connections;
}

/** `count` paid calls of the buyers `ask` drives against `server`, the server's CPU (and its database's) read around them. */
async function pay(
  server: Server,
  ask: Ask,
  count: number,
  facilitatorUrl: string,
  database: BackendCpu | undefined,
): Promise<Sample> {
  const { running } = server;
  const prepared = (await ask({ prepare: { url: `${running.url}${ROUTE}`, count } })) as {
    signatureBytes: number;
  };
  const connectionsBefore = await facilitatorConnections(facilitatorUrl);
  const statementsBefore = await statementCounts(running);
  const databaseBefore =
    database && server.databaseApplication ? await database.of(server.databaseApplication) : undefined;
  const before = cpuTimes(running.pid);
  const done = (await ask({ go: true })) as Omit<Sample, "signatureBytes"> & { signedDuringRun: number };
  const after = cpuTimes(running.pid);
  const databaseAfter =
    database && server.databaseApplication ? await database.of(server.databaseApplication) : undefined;
  const statementsAfter = await statementCounts(running);
  if (!before || !after) throw new Error("/proc is needed to read the server's CPU time");
  const paid = done.statuses["200"] ?? 0;
  if (paid !== count)
    throw new Error(
      `${running.name}: ${paid} of ${count} paid calls answered 200 (${JSON.stringify(done.statuses)})`,
    );
  if (done.signedDuringRun > 0)
    console.warn(`  WARNING: ${done.signedDuringRun} payments were signed during the run`);
  const databaseUs = BackendCpu.spent(databaseBefore, databaseAfter);
  return {
    statuses: done.statuses,
    perSecond: done.perSecond,
    p50Ms: done.p50Ms,
    p99Ms: done.p99Ms,
    signatureBytes: prepared.signatureBytes,
    userUsPerCall: (after.userUs - before.userUs) / count,
    kernelUsPerCall: (after.systemUs - before.systemUs) / count,
    ...(databaseUs !== undefined ? { databaseUsPerCall: databaseUs / count } : {}),
    facilitatorConnections: (await facilitatorConnections(facilitatorUrl)) - connectionsBefore,
    ...(statementsBefore && statementsAfter
      ? { statements: difference(statementsBefore, statementsAfter) }
      : {}),
  };
}

function report(results: Map<string, RoundResult[]>): void {
  const widths = [24, 30, 7, 7, 7, 8, 7, 7, 17, 8, 5];
  console.log(
    `\nmedians over ${ROUNDS} rounds of ${CALLS} calls (CPU: median and range; "× ref.": median of the per-round ratios)`,
  );
  console.log(
    tableRow(
      [
        "server",
        "workload",
        "sig. KB",
        "calls/s",
        "p50 ms",
        "p99 ms",
        "user µs",
        "kern µs",
        "CPU µs",
        "× ref.",
        "fac.",
      ],
      widths,
      2,
    ),
  );
  for (const workload of CHOSEN) {
    for (const [server, rounds] of results) {
      const samples = rounds.map((r) => r[workload] as Sample);
      const ratios = perRoundRatios(results, server, REFERENCE, (r) => cpuOf(r[workload] as Sample));
      const mid = (pick: (s: Sample) => number) => median(samples.map(pick));
      console.log(
        tableRow(
          [
            server,
            WORKLOADS[workload],
            ((samples[0]?.signatureBytes ?? 0) / 1024).toFixed(1),
            mid((s) => s.perSecond).toFixed(0),
            mid((s) => s.p50Ms).toFixed(2),
            mid((s) => s.p99Ms).toFixed(2),
            mid((s) => s.userUsPerCall).toFixed(0),
            mid((s) => s.kernelUsPerCall).toFixed(0),
            spreadText(samples.map(cpuOf)),
            median(ratios).toFixed(2),
            String(samples.reduce((n, s) => n + s.facilitatorConnections, 0)),
          ],
          widths,
          2,
        ),
      );
    }
  }
  console.log("");
  for (const [server, rounds] of results) {
    for (const workload of CHOSEN) {
      const samples = rounds.map((r) => r[workload] as Sample);
      const database = samples.map((s) => s.databaseUsPerCall).filter((us): us is number => us !== undefined);
      if (database.length)
        console.log(
          `${server}, ${WORKLOADS[workload]}: PostgreSQL's own CPU per call ${spreadText(database)} µs ` +
            `(its backends serving paycall, from /proc; the database shares the host; reported, not in the aim)`,
        );
      const counted = samples.flatMap((s) => (s.statements ? [s.statements] : []));
      if (counted.length) {
        const totals: Record<string, number> = {};
        for (const counts of counted)
          for (const [kind, n] of Object.entries(counts)) totals[kind] = (totals[kind] ?? 0) + n;
        const calls = counted.length * CALLS;
        const all = Object.values(totals).reduce((a, b) => a + b, 0) / calls;
        const kinds = Object.entries(totals)
          .map(([kind, n]) => `${kind} ${(n / calls).toFixed(2)}`)
          .join(", ");
        console.log(
          `${server}, ${WORKLOADS[workload]}: ${all.toFixed(2)} SQL statements per call (${kinds})`,
        );
      }
    }
  }
  console.log("");
  for (const workload of CHOSEN) {
    for (const server of results.keys()) {
      if (server === REFERENCE) continue;
      const ratios = perRoundRatios(results, server, REFERENCE, (r) => cpuOf(r[workload] as Sample));
      const aim = workload === "fetch" ? { atMost: aimRatio(server) } : undefined;
      console.log(
        ratioLine(`${server}, ${WORKLOADS[workload]}: CPU per call / the reference's`, ratios, aim),
      );
    }
  }
  const baselines = [
    ["SQLite", "paycall, SQLite", BASELINE_SERVER],
    ["PostgreSQL", "paycall, PostgreSQL", PG_BASELINE_SERVER],
  ] as const;
  for (const [store, server, baseline] of baselines)
    if (results.has(baseline))
      for (const workload of CHOSEN)
        console.log(
          ratioLine(
            `this checkout / the baseline (${store}), ${WORKLOADS[workload]}: CPU per call`,
            perRoundRatios(results, server, baseline, (r) => cpuOf(r[workload] as Sample)),
          ),
        );
  if (results.has(SOLANA_SERVER))
    for (const workload of CHOSEN)
      console.log(
        ratioLine(
          `Solana / Base (SQLite), ${WORKLOADS[workload]}: CPU per call`,
          perRoundRatios(results, SOLANA_SERVER, "paycall, SQLite", (r) => cpuOf(r[workload] as Sample)),
        ),
      );
  if (ROUNDS < 5)
    console.log(`(${ROUNDS} round(s): a check that the bench runs, not a figure; figures take ≥ 5)`);
}

async function main(): Promise<void> {
  if (!PINNED)
    console.warn("WARNING: taskset is missing or fewer than 2 CPUs: servers and buyers share cores.");
  console.log(
    `paid-path bench: GET ${ROUTE}, ${ROUNDS} rounds of ${CALLS} paid calls per server and workload (after ${WARMUP} ` +
      `warm-up), ${BUYERS} buyers; servers ${PINNED ? "on CPU 0" : "unpinned"}, buyers and facilitator ` +
      `${PINNED ? "on CPU 1" : "unpinned"}`,
  );
  const facilitator = await startFacilitator();
  const profileDir = process.env.BENCH_CPU_PROF?.trim();
  // Node samples every 1,000 µs by default: about 2,000 busy samples in a run, too few to split a paid call.
  const profileInterval = knob("BENCH_CPU_PROF_INTERVAL", 1000, 50, 100_000);
  const paycallNodeArgs = [
    ...(profileDir
      ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${profileInterval}`]
      : []),
    ...(COUNT_STATEMENTS ? ["--import", path.join(ROOT, "bench/servers/count-statements.ts")] : []),
  ];
  const statementsEnv = (name: string) =>
    COUNT_STATEMENTS ? { BENCH_STATEMENTS_FILE: path.join(scratchDir("paid-statements-"), name) } : {};

  const servers = new Map<string, Server>();
  const sqlite = await startPaycall(
    "paycall, SQLite",
    facilitator.url,
    statementsEnv("sqlite.json"),
    paycallNodeArgs,
  );
  servers.set(sqlite.name, { running: sqlite });
  if (BASELINE) {
    const baseline = await startPaycall(
      BASELINE_SERVER,
      facilitator.url,
      {},
      [...paycallNodeArgs, ...BASELINE_NODE_FLAGS],
      BASELINE,
    );
    servers.set(baseline.name, { running: baseline });
  }

  let database: BackendCpu | undefined;
  const schema = `bench_paid_${process.pid}`;
  if (PG_URL !== "none") {
    database = await BackendCpu.open(PG_URL);
    const application = `paycall_bench_${process.pid}`;
    const postgres = await startPaycall(
      "paycall, PostgreSQL",
      facilitator.url,
      {
        DATABASE_URL: withApplicationName(PG_URL, application),
        DATABASE_SCHEMA: schema,
        ...statementsEnv("postgres.json"),
      },
      paycallNodeArgs,
    );
    servers.set(postgres.name, { running: postgres, databaseApplication: application });
    if (BASELINE) {
      const baselineApplication = `${application}_baseline`;
      const baseline = await startPaycall(
        PG_BASELINE_SERVER,
        facilitator.url,
        {
          DATABASE_URL: withApplicationName(PG_URL, baselineApplication),
          DATABASE_SCHEMA: `${schema}_baseline`,
        },
        [...paycallNodeArgs, ...BASELINE_NODE_FLAGS],
        BASELINE,
      );
      servers.set(baseline.name, { running: baseline, databaseApplication: baselineApplication });
    }
  }
  servers.set(REFERENCE, { running: await startReference(facilitator.url, sqlite.url) });
  const solanaRpc = `${facilitator.url}/solana-rpc`;
  if (SOLANA_ROW) {
    const solana = await startPaycall(
      SOLANA_SERVER,
      facilitator.url,
      { NETWORKS: "solana", PAY_TO_SOLANA, SOLANA_RPC_URL: solanaRpc, ...statementsEnv("solana.json") },
      paycallNodeArgs,
    );
    servers.set(SOLANA_SERVER, { running: solana });
  }

  try {
    await askWhatTheReferenceAsked(
      [...servers.values()].flatMap(({ running }) => (running === sqlite ? [] : [running.url])),
    );
    // One buyers' child per workload (and per network) for the whole run, on CPU 1.
    const buyersOf = (solana: boolean) =>
      new Map<Workload, Ask>(
        CHOSEN.map((workload) => [
          workload,
          conversation(
            spawnPinned(1, [
              "bench/servers/paid-load.ts",
              workload,
              String(BUYERS),
              ...(solana ? [solanaRpc] : []),
            ]),
          ),
        ]),
      );
    const buyers = buyersOf(false);
    const solanaBuyers = SOLANA_ROW ? buyersOf(true) : buyers;
    const ask = (workload: Workload, server: string) =>
      (server === SOLANA_SERVER ? solanaBuyers : buyers).get(workload) as Ask;
    if (WARMUP > 0)
      for (const [name, server] of servers)
        for (const workload of CHOSEN)
          await pay(server, ask(workload, name), WARMUP, facilitator.url, database);

    const contenders: Contender<RoundResult>[] = [...servers].map(([name, server]) => ({
      name,
      measure: async () => {
        const result: RoundResult = {};
        for (const workload of CHOSEN)
          result[workload] = await pay(server, ask(workload, name), CALLS, facilitator.url, database);
        return result;
      },
    }));
    const results = await inRounds(contenders, ROUNDS, (round, these) => {
      const cells = [...these].map(([name, r]) =>
        CHOSEN.map((w) => `${name} ${w} ${cpuOf(r[w] as Sample).toFixed(0)}`).join(", "),
      );
      console.log(`round ${round}/${ROUNDS} (CPU µs per call): ${cells.join(" · ")}`);
    });
    report(results);
  } finally {
    for (const server of servers.values()) await stopChild(server.running.child);
    if (database) {
      await database.close();
      await dropSchema(PG_URL, schema);
      if (BASELINE) await dropSchema(PG_URL, `${schema}_baseline`);
    }
    await cleanup();
  }
}

runBench(main);
