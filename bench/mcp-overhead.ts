// Benchmark of an MCP paid call's server CPU against the HTTP paid call's: the same paid call (ECB FX,
// pair=USD) bought over HTTP with PAYMENT-SIGNATURE and as an MCP tools/call with _meta["x402/payment"], against
// one paycall node (bench/servers/paycall.ts, as `npm start` runs it, on CPU 0) paying through the stand-in
// facilitator (bench/servers/facilitator.ts, on CPU 1), so the figure is the seller's own work. Two MCP forms:
// an earlier MCP revision (2025-11-25, what the SDK's clients send) and MCP 2026-07-28; paycall answers a
// tools/call of either itself (src/mcp/direct.ts; the earlier one in the MCP SDK's envelope). Each is one
// JSON-RPC POST made with fetch, so the buyer's side costs the same whatever the server does. Payments are
// signed before the clock starts; the server's CPU (user + kernel, summed over its threads from /proc to the
// nanosecond) is read around each contender's calls, in short alternating rounds (bench/rounds.ts), and the
// figure is the median (and range) of the per-round ratios MCP / HTTP. Many short rounds: on a shared machine
// a round's ratio swings with the load, their median much less.
//
//   node_modules/.bin/node bench/mcp-overhead.ts   (BENCH_ROUNDS=24, MCP_BENCH_CALLS=200 per round and
//     contender, MCP_BENCH_WARMUP=100 once: 14,700 payments signed first, about a minute;
//     BENCH_CPU_PROF=<dir> writes a CPU profile of the paycall child)
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { Agent } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { knob } from "./common.ts";
import { ROUTE, startFacilitator, startPaycall } from "./paid-servers.ts";
import { cleanup, cpuTimeUs, runBench } from "./processes.ts";
import { type Contender, inRounds, perRoundRatios, ratioLine, spreadText } from "./rounds.ts";

const ROUNDS = knob("BENCH_ROUNDS", 24, 1, 50);
const CALLS = knob("MCP_BENCH_CALLS", 200, 20, 100_000);
const WARMUP = knob("MCP_BENCH_WARMUP", 100, 0, 100_000);
const TOOL = "macro_ecb_fx";
const ARGS = { pair: "USD" };
/** The aim: an MCP paid call's server CPU at most this multiple of the HTTP paid call's. */
const AIM = { atMost: 1.2 };

const HTTP = "HTTP paid";
const MCP_EARLIER = "MCP paid, 2025-11-25";
const MCP_MODERN = "MCP paid, 2026-07-28";

/**
 * The measured calls' connections, opened after the signing: a connection left idle while payments are signed
 * may be closed by the server just as it is reused.
 */
const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
const send = (url: string, init: RequestInit = {}) => fetch(url, { ...init, dispatcher } as RequestInit);

const signer = new x402Client().register(
  "eip155:*",
  new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())),
);

async function signMany(required: PaymentRequired, count: number): Promise<PaymentPayload[]> {
  const payments: PaymentPayload[] = [];
  for (let i = 0; i < count; i++) payments.push(await signer.createPaymentPayload(required));
  return payments;
}

/** One tools/call POST as each MCP form sends it. */
function toolsCall(modern: boolean, payment?: PaymentPayload): RequestInit {
  const meta: Record<string, unknown> = payment ? { "x402/payment": payment } : {};
  if (modern) {
    meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28";
    meta["io.modelcontextprotocol/clientCapabilities"] = {};
  }
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": modern ? "2026-07-28" : "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: TOOL, arguments: ARGS, _meta: meta },
    }),
  };
}

interface ToolAnswer {
  result?: { isError?: boolean; structuredContent?: PaymentRequired };
  error?: unknown;
}

async function main(): Promise<void> {
  const facilitator = await startFacilitator();
  const profile = process.env.BENCH_CPU_PROF;
  const paycall = await startPaycall(
    "paycall",
    facilitator.url,
    {},
    profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [],
  );
  const url = `${paycall.url}${ROUTE}`;
  const mcpUrl = `${paycall.url}/mcp`;

  const unpaid = await fetch(url);
  await unpaid.arrayBuffer();
  const httpRequired = decodePaymentRequiredHeader(unpaid.headers.get("payment-required") as string);
  const mcpRequired = async (modern: boolean) => {
    const answer = (await (await fetch(mcpUrl, toolsCall(modern))).json()) as ToolAnswer;
    const required = answer.result?.structuredContent;
    if (!required?.accepts)
      throw new Error(`the unpaid tool call gave no requirements: ${JSON.stringify(answer)}`);
    return required;
  };
  // Every requirement is asked for before the signing: a connection left idle that long is closed by the server.
  const required: [string, PaymentRequired][] = [
    [HTTP, httpRequired],
    [MCP_EARLIER, await mcpRequired(false)],
    [MCP_MODERN, await mcpRequired(true)],
  ];
  const total = ROUNDS * CALLS + WARMUP;
  process.stdout.write(`signing ${3 * total} payments…\n`);
  const payments = new Map<string, PaymentPayload[]>();
  for (const [name, requirements] of required) payments.set(name, await signMany(requirements, total));

  const calls: Record<string, (payment: PaymentPayload) => Promise<void>> = {
    [HTTP]: async (payment) => {
      const response = await send(url, {
        headers: { "payment-signature": encodePaymentSignatureHeader(payment) },
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`HTTP paid call answered ${response.status}`);
    },
    [MCP_EARLIER]: (payment) => mcpPaid(mcpUrl, false, payment),
    [MCP_MODERN]: (payment) => mcpPaid(mcpUrl, true, payment),
  };
  const runCalls = async (name: string, count: number) => {
    const kept = payments.get(name) as PaymentPayload[];
    for (let i = 0; i < count; i++) await calls[name]?.(kept.pop() as PaymentPayload);
  };
  for (const name of Object.keys(calls)) await runCalls(name, WARMUP);

  const contenders: Contender<number>[] = Object.keys(calls).map((name) => ({
    name,
    measure: async () => {
      const before = cpuTimeUs(paycall.pid);
      await runCalls(name, CALLS);
      const after = cpuTimeUs(paycall.pid);
      if (before === undefined || after === undefined)
        throw new Error("/proc is needed to read the server's CPU time");
      return (after - before) / CALLS;
    },
  }));
  const results = await inRounds(contenders, ROUNDS, (round, these) =>
    process.stdout.write(
      `round ${round}: ${[...these].map(([name, us]) => `${name} ${us.toFixed(0)} µs`).join(", ")}\n`,
    ),
  );
  process.stdout.write(
    `\nserver CPU per paid call (µs, median and range over ${ROUNDS} rounds of ${CALLS} calls each)\n`,
  );
  for (const [name, values] of results) process.stdout.write(`  ${name.padEnd(36)} ${spreadText(values)}\n`);
  for (const name of [MCP_EARLIER, MCP_MODERN]) {
    const ratios = perRoundRatios(results, name, HTTP, (us) => us);
    process.stdout.write(`${ratioLine(`${name} / ${HTTP}`, ratios, AIM)}\n`);
  }
  await dispatcher.close();
  await cleanup();
}

async function mcpPaid(mcpUrl: string, modern: boolean, payment: PaymentPayload): Promise<void> {
  const response = await send(mcpUrl, toolsCall(modern, payment));
  const answer = (await response.json()) as ToolAnswer;
  if (!answer.result || answer.result.isError) {
    throw new Error(`MCP paid call failed: ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

runBench(main);
