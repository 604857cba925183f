// Benchmark of the MCP surface's cost over plain HTTP, in one run against one service (local facilitator,
// UPSTREAMS=replay, SQLite): the same paid call (ECB FX, pair=USD) bought over HTTP with PAYMENT-SIGNATURE and
// through the MCP tool with _meta["x402/payment"] (by the MCP SDK's client, and as a bare JSON-RPC POST), and the unpaid call (HTTP 402 vs the tool's payment-required
// result). Payments are signed before the clock starts; rounds alternate HTTP and MCP so drift hits both alike.
// Times are what the buyer waits: the client (the MCP SDK's, or fetch) runs in this process too.
//
//   node_modules/.bin/node bench/mcp-overhead.ts   (MCP_BENCH_CALLS=200, MCP_BENCH_ROUNDS=5)

import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, startTestService } from "../test/harness.ts";
import { callTool, connectMcp, signPayment, x402Error } from "../test/mcp-harness.ts";
import { knob, percentile } from "./common.ts";

const CALLS = knob("MCP_BENCH_CALLS", 200, 10, 100_000);
const ROUNDS = knob("MCP_BENCH_ROUNDS", 5, 1, 100);
const WARMUP = 10;
const TOOL = "macro_ecb_fx";
const ARGS = { pair: "USD" };

const service = await startTestService();
await service.worker.runWarmer("ecb.fx");
const url = `${service.url}/v1/macro/ecb/fx?pair=USD`;
const client = await connectMcp(service.url);
const buyer = newBuyer();
await creditWallet(service.store, NETWORKS.base, buyer.address, "1000");

async function signMany(required: PaymentRequired, count: number): Promise<PaymentPayload[]> {
  const payments: PaymentPayload[] = [];
  for (let i = 0; i < count; i++) payments.push(await signPayment(buyer, required));
  return payments;
}

async function httpRequired(): Promise<PaymentRequired> {
  const response = await fetch(url);
  await response.arrayBuffer();
  return decodePaymentRequiredHeader(response.headers.get("payment-required") as string);
}

const kinds = {
  "HTTP paid": async (payment?: PaymentPayload) => {
    const response = await fetch(url, {
      headers: { "payment-signature": encodePaymentSignatureHeader(payment as PaymentPayload) },
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`HTTP paid call answered ${response.status}`);
  },
  "MCP paid": async (payment?: PaymentPayload) => {
    const result = await callTool(client, TOOL, ARGS, payment);
    if (result.isError) throw new Error("MCP paid call failed");
  },
  // The same tools/call as one JSON-RPC POST, without the SDK client (no output-schema check on its side).
  "MCP paid, raw JSON-RPC": async (payment?: PaymentPayload) => {
    const response = await fetch(`${service.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: TOOL, arguments: ARGS, _meta: { "x402/payment": payment } },
      }),
    });
    const answer = (await response.json()) as { result?: { isError?: boolean } };
    if (!answer.result || answer.result.isError) throw new Error("raw MCP paid call failed");
  },
  "HTTP unpaid (402)": async () => {
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 402) throw new Error(`HTTP unpaid call answered ${response.status}`);
  },
  "MCP unpaid (payment required)": async () => {
    x402Error(await callTool(client, TOOL, ARGS));
  },
} as const;
type Kind = keyof typeof kinds;

const perRound = Math.ceil(CALLS / ROUNDS);
const total = perRound * ROUNDS + WARMUP;
const payments: Record<string, PaymentPayload[]> = {
  "HTTP paid": await signMany(await httpRequired(), total),
  "MCP paid": await signMany(x402Error(await callTool(client, TOOL, ARGS)).data, total),
  "MCP paid, raw JSON-RPC": await signMany(x402Error(await callTool(client, TOOL, ARGS)).data, total),
};
const samples: Record<Kind, number[]> = {
  "HTTP paid": [],
  "MCP paid": [],
  "MCP paid, raw JSON-RPC": [],
  "HTTP unpaid (402)": [],
  "MCP unpaid (payment required)": [],
};

async function run(kind: Kind, count: number, record: boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    const payment = payments[kind]?.pop();
    const started = performance.now();
    await kinds[kind](payment);
    if (record) samples[kind].push(performance.now() - started);
  }
}

for (const kind of Object.keys(kinds) as Kind[]) await run(kind, WARMUP, false);
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.keys(kinds) as Kind[];
  if (round % 2 === 1) order.reverse();
  for (const kind of order) await run(kind, perRound, true);
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, mean, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

const rows = Object.fromEntries((Object.keys(samples) as Kind[]).map((k) => [k, stats(samples[k])]));
const ms = (v: number) => `${v.toFixed(2)} ms`;
process.stdout.write(`MCP overhead, ${perRound * ROUNDS} calls per kind in ${ROUNDS} alternating rounds\n`);
for (const [kind, s] of Object.entries(rows)) {
  process.stdout.write(
    `${kind.padEnd(32)} n=${s.n}  mean ${ms(s.mean)}  p50 ${ms(s.p50)}  p99 ${ms(s.p99)}\n`,
  );
}
const ratio = (a: Kind, b: Kind) =>
  `mean ×${((rows[a]?.mean ?? 0) / (rows[b]?.mean ?? 1)).toFixed(2)}, p50 ×${((rows[a]?.p50 ?? 0) / (rows[b]?.p50 ?? 1)).toFixed(2)}`;
process.stdout.write(`paid: MCP / HTTP    ${ratio("MCP paid", "HTTP paid")}\n`);
process.stdout.write(`paid: raw MCP / HTTP  ${ratio("MCP paid, raw JSON-RPC", "HTTP paid")}\n`);
process.stdout.write(`unpaid: MCP / HTTP  ${ratio("MCP unpaid (payment required)", "HTTP unpaid (402)")}\n`);

const settled = (await service.store.ledger.list({ limit: 100_000 })).filter(
  (r) => r.state === "settled",
).length;
process.stdout.write(`ledger: ${settled} settled rows (expected ${3 * total})\n`);
await client.close();
await service.stop();
