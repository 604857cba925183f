// Benchmark of batch-settlement against exact on the paid path, with a stand-in facilitator that answers verify in
// 200 ms and settle in 1 s (what public figures say production takes). One paycall service in process (SQLite),
// the test family's $0.01 item; buyers' payments are signed before the clock starts (exact: one EIP-3009
// authorization per call; batch-settlement: one voucher per call on a channel each buyer opened before). Each
// round sends CALLS paid calls per contender, BUYERS at once (a channel takes one voucher at a time, so each
// buyer's vouchers go one after another), and measures per call: latency (p50, p99) and this process's CPU
// (user + system, the buyers' fetch included, their signing not). The contenders alternate in rounds
// (bench/rounds.ts); the figures are the median and range of the per-round ratios. Then one buyer pays 1,000
// voucher calls with the channel manager's beat after every 100 (default thresholds), and the stand-in
// facilitator's settle calls are its on-chain transactions (deposit, claims, settlements).
// A third contender, "SDK voucher check", times the SDK's BatchSettlementEvmScheme alone on each buyer's next
// voucher: its before-verify hook (the channel read, the channel-id binding and the local signature check that
// end in its verdict), called directly as paycall's resource server calls it, on the service's store. Its CPU
// per voucher against exact's whole call is the least a voucher call can cost relative to exact while the
// SDK's scheme decides.
//
//   node_modules/.bin/node bench/batch-settlement.ts   (BENCH_ROUNDS=5, BENCH_BATCH_CALLS=40 per round,
//     BENCH_BATCH_BUYERS=8)
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { BatchSettlementEvmScheme as BatchClient, signVoucher } from "@x402/evm/batch-settlement/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { receiverAuthorizer } from "../src/x402/seller/batch/authorizer-key.ts";
import { batchSchemes } from "../src/x402/seller/batch/offer.ts";
import { startTestService } from "../test/harness.ts";
import { startStubFacilitator } from "../test/stub-facilitator.ts";
import { testFamily } from "../test/test-family.ts";
import { knob, percentile } from "./common.ts";
import { inRounds, perRoundRatios, ratioLine, spreadText } from "./rounds.ts";

const ROUNDS = knob("BENCH_ROUNDS", 5, 1, 50);
const CALLS = knob("BENCH_BATCH_CALLS", 40, 8, 10_000);
const BUYERS = knob("BENCH_BATCH_BUYERS", 8, 1, 64);
const BASE = "eip155:8453";
const ITEM = "/v1/test/item?mode=ok";
const DEPOSIT = "100000000"; // $100: enough for every call of the bench

const stub = await startStubFacilitator();
stub.supported.kinds.push({ x402Version: 2, scheme: "batch-settlement", network: BASE });
const state = { balance: DEPOSIT, totalClaimed: "0", withdrawRequestedAt: 0, refundNonce: "0" };
stub.verify = {
  kind: "json",
  status: 200,
  delayMs: 200,
  body: { isValid: true, payer: "0x0000000000000000000000000000000000000001", extra: state },
};
stub.settle = {
  kind: "json",
  status: 200,
  delayMs: 1000,
  body: {
    success: true,
    transaction: `0x${"ab".repeat(32)}`,
    network: BASE,
    payer: "0x0000000000000000000000000000000000000001",
    extra: { channelState: state },
  },
};
const service = await startTestService(
  {
    FACILITATOR_URL: stub.url,
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"4b".repeat(32)}`,
    FACILITATOR_TIMEOUT_MS: "5000",
    WORKER_POLL_MS: "60000",
    SCHEDULE_EVERY_MS: "3600000",
  },
  [testFamily],
);
const url = `${service.url}${ITEM}`;
const required = JSON.parse(
  Buffer.from((await fetch(url)).headers.get("payment-required") as string, "base64").toString(),
) as PaymentRequired;
const accept = (scheme: string) => required.accepts.find((a) => a.scheme === scheme) as PaymentRequirements;
const header = (accepted: PaymentRequirements, payload: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ x402Version: 2, accepted, resource: required.resource, payload })).toString(
    "base64",
  );

/** A buyer with a channel opened by a deposit (the SDK's client), and where its next voucher starts. */
async function openChannel(account: PrivateKeyAccount) {
  const client = new BatchClient(account, { depositStrategy: () => DEPOSIT });
  const pay = wrapFetchWithPayment(fetch, new x402Client().register(BASE, client).setSpendControls(false));
  if ((await pay(url)).status !== 200) throw new Error("the deposit call failed");
  const voucher = (await client.createPaymentPayload(2, accept("batch-settlement"))).payload as any;
  return {
    client,
    account,
    config: voucher.channelConfig,
    channelId: voucher.voucher.channelId as `0x${string}`,
    next: 2,
  };
}
type Channel = Awaited<ReturnType<typeof openChannel>>;
const PRICE = BigInt(accept("exact").amount);

async function presignVouchers(channel: Channel, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const total = (PRICE * BigInt(channel.next++)).toString();
    const voucher = await signVoucher(channel.account, channel.channelId, total, BASE);
    out.push(header(accept("batch-settlement"), { type: "voucher", channelConfig: channel.config, voucher }));
  }
  return out;
}

async function presignExact(account: PrivateKeyAccount, count: number): Promise<string[]> {
  const scheme = new ExactEvmScheme(account);
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(
      header(
        accept("exact"),
        (await scheme.createPaymentPayload(2, accept("exact"))).payload as Record<string, unknown>,
      ),
    );
  return out;
}

interface Sample {
  p50Ms: number;
  p99Ms: number;
  cpuUsPerCall: number;
  failed: number;
}

/** Sends each buyer's headers one after another, the buyers at once; latency per call and CPU per call. */
async function send(perBuyer: string[][]): Promise<Sample> {
  const latencies: number[] = [];
  let failed = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    perBuyer.map(async (headers) => {
      for (const h of headers) {
        const started = performance.now();
        const response = await fetch(url, { headers: { "payment-signature": h } });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        if (response.status !== 200) failed++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const calls = latencies.length;
  return {
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuUsPerCall: (used.user + used.system) / calls,
    failed,
  };
}

const accounts = Array.from({ length: BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
const channels = await Promise.all(accounts.map(openChannel));
const perBuyer = Math.ceil(CALLS / BUYERS);
/** The SDK's own server scheme over the service's store, as paycall registers it for the network. */
const sdkScheme = (() => {
  const { signer } = receiverAuthorizer(service.config);
  if (!signer) throw new Error("the bench service has no receiver authorizer");
  const found = batchSchemes(service.config, service.store, signer).find((s) => s.network.caip2 === BASE);
  if (!found) throw new Error(`no batch-settlement scheme on ${BASE}`);
  return found.scheme;
})();
const CHECKS = 200; // per round, spread over the buyers' channels

/** The scheme's before-verify hook on each channel's next voucher (signed, not sent), CHECKS times. */
async function sdkCheck(): Promise<Sample> {
  const payloads = await Promise.all(
    channels.map(async (c) => {
      const total = (PRICE * BigInt(c.next)).toString();
      const voucher = await signVoucher(c.account, c.channelId, total, BASE);
      return JSON.stringify({ type: "voucher", channelConfig: c.config, voucher });
    }),
  );
  const requirements = accept("batch-settlement");
  const onBeforeVerify = sdkScheme.schemeHooks.onBeforeVerify;
  if (!onBeforeVerify) throw new Error("the SDK scheme has no before-verify hook");
  const latencies: number[] = [];
  let failed = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < CHECKS; i++) {
    // A fresh payload object per check, as each request decodes its own (the scheme keys its context on it).
    const paymentPayload = {
      x402Version: 2,
      accepted: requirements,
      resource: required.resource,
      payload: JSON.parse(payloads[i % payloads.length] as string),
    };
    const started = performance.now();
    const verdict = await onBeforeVerify({ paymentPayload, requirements, declaredExtensions: {} } as never);
    latencies.push(performance.now() - started);
    const decided = verdict as { skip?: boolean; result?: { isValid?: boolean } } | undefined;
    if (!decided?.skip || decided.result?.isValid !== true) failed++;
  }
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuUsPerCall: (used.user + used.system) / CHECKS,
    failed,
  };
}

const results = await inRounds<Sample>(
  [
    {
      name: "exact",
      measure: async () => send(await Promise.all(accounts.map((a) => presignExact(a, perBuyer)))),
    },
    {
      name: "voucher",
      measure: async () => send(await Promise.all(channels.map((c) => presignVouchers(c, perBuyer)))),
    },
    { name: "SDK voucher check", measure: sdkCheck },
  ],
  ROUNDS,
  (round, r) =>
    console.log(
      `round ${round}: ${[...r].map(([name, s]) => `${name} p50 ${s.p50Ms.toFixed(1)} ms p99 ${s.p99Ms.toFixed(1)} ms cpu ${s.cpuUsPerCall.toFixed(0)} µs/call${s.failed ? ` (${s.failed} failed)` : ""}`).join("; ")}`,
    ),
);
for (const name of ["exact", "voucher", "SDK voucher check"]) {
  const samples = results.get(name) ?? [];
  console.log(
    `${name}: p50 ${spreadText(
      samples.map((s) => s.p50Ms),
      1,
    )} ms, p99 ${spreadText(
      samples.map((s) => s.p99Ms),
      1,
    )} ms, CPU ${spreadText(samples.map((s) => s.cpuUsPerCall))} µs per call (median and range over ${ROUNDS} rounds)`,
  );
}
console.log(
  ratioLine(
    "voucher / exact, p50 latency",
    perRoundRatios(results, "voucher", "exact", (s) => s.p50Ms),
    { atMost: 1 / 20 },
    4,
  ),
);
console.log(
  ratioLine(
    "voucher / exact, CPU per call",
    perRoundRatios(results, "voucher", "exact", (s) => s.cpuUsPerCall),
    { atMost: 1 },
  ),
);
console.log(
  ratioLine(
    "SDK voucher check alone / exact's whole call, CPU (the least voucher / exact can be while the SDK decides)",
    perRoundRatios(results, "SDK voucher check", "exact", (s) => s.cpuUsPerCall),
  ),
);

// One buyer, 1,000 voucher calls, the channel manager's beat every 100: the on-chain transactions it takes.
await service.paywall()?.batch?.flush();
const settlesBefore = stub.calls.settle;
const one = await openChannel(privateKeyToAccount(generatePrivateKey()));
for (let i = 0; i < 10; i++) {
  const sample = await send([await presignVouchers(one, 100)]);
  if (sample.failed) throw new Error(`${sample.failed} voucher calls failed`);
  await service.paywall()?.batch?.tick();
}
await service.paywall()?.batch?.flush("shutdown");
console.log(
  `one buyer, 1,000 voucher calls at $${Number(PRICE) / 1e6} (claims at $${Number(service.config.batch.claimThresholdAtomic) / 1e6} owed, and at shutdown): ${stub.calls.settle - settlesBefore} on-chain transactions (deposit, claims, settlements); exact takes 1,000`,
);
await service.stop();
await stub.close();
