// Bench child: paying buyers. Reads the 402 of a URL, signs `count` payments for it up front (each with its own
// nonce, as a buyer's wallet would), prints `{"signed":count}` and waits for a line on stdin; then sends them
// with `concurrency` buyers over keep-alive connections and prints one JSON line with the statuses and latency.
//   node bench/servers/paid-load.ts <url> <count> <concurrency>
import { createInterface } from "node:readline";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { Agent } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { percentile } from "../common.ts";

const [url, countText, concurrencyText] = process.argv.slice(2) as [string, string, string];
const count = Number(countText);
const concurrency = Number(concurrencyText);
const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });

const challenge = await fetch(url, { dispatcher } as RequestInit);
await challenge.arrayBuffer();
const header = challenge.headers.get("payment-required");
if (challenge.status !== 402 || !header)
  throw new Error(`expected a 402 from ${url}, got ${challenge.status}`);
const paymentRequired = decodePaymentRequiredHeader(header);

const client = new x402Client().register(
  "eip155:*",
  new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())),
);
const signed: string[] = [];
for (let i = 0; i < count; i++) {
  const payload = await client.createPaymentPayload(paymentRequired);
  signed.push(encodePaymentSignatureHeader(payload));
}
process.stdout.write(`${JSON.stringify({ signed: count })}\n`);
const go = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => go.once("line", () => resolve()));
go.close();
process.stdin.destroy();

const statuses: Record<string, number> = {};
const latencies: number[] = [];
let next = 0;
const started = performance.now();
async function buyer(): Promise<void> {
  while (next < signed.length) {
    const payment = signed[next++] as string;
    const at = performance.now();
    const response = await fetch(url, {
      headers: { "payment-signature": payment },
      dispatcher,
    } as RequestInit);
    await response.arrayBuffer();
    latencies.push(performance.now() - at);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
}
await Promise.all(Array.from({ length: concurrency }, buyer));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    done: true,
    statuses,
    seconds,
    perSecond: count / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  })}\n`,
);
await dispatcher.close();
process.exit(0);
