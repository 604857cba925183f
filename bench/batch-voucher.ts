// A paid call by `exact` against the same call by a batch-settlement voucher, with a facilitator at production
// latency: the real local facilitator (bench/servers/batch-facilitator.ts: the SDK's schemes over a pretend
// chain) answering verify after 200 ms and settle after 1 s, as public figures say production takes. paycall is
// one node as `npm start` runs it (CPU 0) with that facilitator as its remote one; BUYERS buyers (the SDK's own
// clients through @x402/fetch, in this process, CPU 1) each make CALLS calls per round, one after another, with
// `exact` or with vouchers on their channel (opened by a deposit before the rounds). The contenders alternate in
// rounds (rounds.ts). Figures: a call's latency (the 402 and the paid retry, as @x402/fetch makes them) p50 and
// p99, paycall's CPU per call (/proc, user + kernel), and the on-chain transactions the calls needed.
// Aims (issue 41): a voucher call's p50 at most 1/20 of exact's, its CPU at most exact's, and at most 3 on-chain
// transactions per 1,000 calls from one buyer.
//   node bench/batch-voucher.ts   (BENCH_ROUNDS=5, BENCH_BATCH_BUYERS=8, BENCH_BATCH_CALLS=5 per buyer per round,
//     BENCH_VERIFY_MS=200, BENCH_SETTLE_MS=1000)
import { x402Client } from "@x402/core/client";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { knob, percentile } from "./common.ts";
import { PAY_TO, ROUTE, startPaycall } from "./paid-servers.ts";
import { cpuTimes, runBench, startServer } from "./processes.ts";
import { inRounds, perRoundRatios, ratioLine, spreadText } from "./rounds.ts";

const ROUNDS = knob("BENCH_ROUNDS", 5, 1, 50);
const BUYERS = knob("BENCH_BATCH_BUYERS", 8, 1, 64);
const CALLS = knob("BENCH_BATCH_CALLS", 5, 1, 1000);
const VERIFY_MS = knob("BENCH_VERIFY_MS", 200, 0, 10_000);
const SETTLE_MS = knob("BENCH_SETTLE_MS", 1000, 0, 60_000);
const BASE = "eip155:8453";
const PRICE = 5000n; // the route's $0.005

interface Round {
  latencies: number[];
  cpuUsPerCall: number;
}

type Pay = (url: string) => Promise<Response>;

function payer(scheme: "exact" | "batch-settlement", account: PrivateKeyAccount): Pay {
  const client = new x402Client();
  if (scheme === "exact") client.register(BASE, new ExactEvmScheme(account));
  else {
    // One deposit for the whole run: every call of every round, and the warm-up's.
    const deposit = PRICE * BigInt(CALLS * (ROUNDS + 1) + 1);
    client.register(BASE, new BatchSettlementEvmScheme(account, { depositStrategy: () => deposit }));
  }
  client.setSpendControls({ maxAmountPerPayment: "$1" });
  return wrapFetchWithPayment(fetch, client);
}

async function call(pay: Pay, url: string): Promise<number> {
  const started = performance.now();
  const response = await pay(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`paid call answered ${response.status}`);
  return performance.now() - started;
}

/** Every buyer makes CALLS calls one after another, all buyers at once; paycall's CPU over the whole. */
async function measure(pays: Pay[], url: string, pid: number): Promise<Round> {
  const before = cpuTimes(pid);
  const latencies = (
    await Promise.all(
      pays.map(async (pay) => {
        const mine: number[] = [];
        for (let i = 0; i < CALLS; i++) mine.push(await call(pay, url));
        return mine;
      }),
    )
  ).flat();
  const after = cpuTimes(pid);
  const cpuUs =
    before && after ? after.userUs + after.systemUs - before.userUs - before.systemUs : Number.NaN;
  return { latencies: latencies.sort((a, b) => a - b), cpuUsPerCall: cpuUs / latencies.length };
}

async function settledKinds(facilitatorUrl: string): Promise<Record<string, number>> {
  return ((await (await fetch(`${facilitatorUrl}/stats`)).json()) as { settled: Record<string, number> })
    .settled;
}

await runBench(async () => {
  const buyers = Array.from({ length: BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
  const facilitator = await startServer(
    "facilitator",
    "bench/servers/batch-facilitator.ts",
    [],
    {
      ...process.env,
      BENCH_FACILITATOR_VERIFY_MS: String(VERIFY_MS),
      BENCH_FACILITATOR_SETTLE_MS: String(SETTLE_MS),
      BENCH_CREDIT: buyers.map((b) => b.address).join(","),
    },
    [],
    1,
  );
  const paycall = await startPaycall("paycall", facilitator.url, {
    BATCH_RECEIVER_AUTHORIZER_KEY: generatePrivateKey(),
  });
  const url = `${paycall.url}${ROUTE}`;
  const exact = buyers.map((b) => payer("exact", b));
  const voucher = buyers.map((b) => payer("batch-settlement", b));
  // Warm-up: one call each way per buyer; the voucher's opens the buyer's channel with its deposit.
  await Promise.all(exact.map((pay) => call(pay, url)));
  console.log(`warm-up: ${BUYERS} exact calls`);
  await Promise.all(voucher.map((pay) => call(pay, url)));
  console.log(`warm-up: ${BUYERS} deposits`);
  const beforeRounds = await settledKinds(facilitator.url);
  const results = await inRounds(
    [
      { name: "exact", measure: () => measure(exact, url, paycall.pid) },
      { name: "voucher", measure: () => measure(voucher, url, paycall.pid) },
    ],
    ROUNDS,
    (round, r) =>
      console.log(
        `round ${round}: ${[...r].map(([n, x]) => `${n} p50 ${percentile(x.latencies, 50).toFixed(1)} ms, ${x.cpuUsPerCall.toFixed(0)} µs CPU/call`).join("; ")}`,
      ),
  );
  const afterRounds = await settledKinds(facilitator.url);
  report(results, beforeRounds, afterRounds);
  console.log(`(pay-to ${PAY_TO}; ${BUYERS} buyers × ${CALLS} calls per round, ${ROUNDS} rounds)`);
});

function report(
  results: Map<string, Round[]>,
  before: Record<string, number>,
  after: Record<string, number>,
): void {
  if (ROUNDS < 3)
    console.log(`(${ROUNDS} round${ROUNDS === 1 ? "" : "s"}: a check that the bench works, not a figure)`);
  for (const name of ["exact", "voucher"]) {
    const r = results.get(name) ?? [];
    console.log(
      `${name}: p50 ${spreadText(
        r.map((x) => percentile(x.latencies, 50)),
        1,
      )} ms, p99 ${spreadText(
        r.map((x) => percentile(x.latencies, 99)),
        1,
      )} ms, CPU ${spreadText(r.map((x) => x.cpuUsPerCall))} µs per call`,
    );
  }
  const p50 = (x: Round) => percentile(x.latencies, 50);
  console.log(
    ratioLine("p50, voucher / exact", perRoundRatios(results, "voucher", "exact", p50), { atMost: 0.05 }, 3),
  );
  console.log(
    ratioLine(
      "CPU per call, voucher / exact",
      perRoundRatios(results, "voucher", "exact", (x) => x.cpuUsPerCall),
      {
        atMost: 1,
      },
    ),
  );
  const during = (kind: string) => (after[kind] ?? 0) - (before[kind] ?? 0);
  const voucherCalls = ROUNDS * BUYERS * CALLS;
  const deposits = after["batch-settlement:deposit"] ?? 0;
  console.log(
    `on-chain: exact ${during("exact")} transfers for ${voucherCalls} calls; vouchers ${during("batch-settlement:deposit")} deposits during the rounds (${deposits} in all, one per buyer)`,
  );
  // One buyer's calls need its deposit, then one claim and one settle (each shared by every channel claimed).
  const perBuyer = CALLS * (ROUNDS + 1);
  console.log(
    `per 1,000 calls from one buyer: exact 1,000 transactions; vouchers (1 deposit + 1 claim + 1 settle) per ${perBuyer} calls here, ${((3 / Math.max(perBuyer, 1000)) * 1000).toFixed(1)} per 1,000 calls on a deposit that covers them; aim ≤ 3`,
  );
}
