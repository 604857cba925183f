// Bench child: paying buyers. Reads the 402 of a URL, signs `count` payments for it up front (each with its own
// nonce, as a buyer's wallet would), prints `{"signed":count}` and waits for a line on stdin; then makes `count`
// paid calls with `concurrency` buyers over keep-alive connections and prints one JSON line with the statuses and
// latency. Two workloads:
//   presigned  each call is the paid request alone, its PAYMENT-SIGNATURE encoded before the clock starts;
//   fetch      each call is what @x402/fetch's wrapFetchWithPayment sends: the unpaid request, then, from the
//              402 it got (parsed by the SDK's client on every call), the paid retry with the PAYMENT-SIGNATURE
//              that echoes the accepted requirement, the resource and every extension of that 402. Only the
//              EIP-3009 signature itself is made before the clock starts (the buyers' CPU is not measured).
//   node bench/servers/paid-load.ts <url> <count> <concurrency> [presigned|fetch]
import { createInterface } from "node:readline";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { Agent } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { percentile } from "../common.ts";

const [url, countText, concurrencyText, mode = "presigned"] = process.argv.slice(2) as [
  string,
  string,
  string,
  string?,
];
if (mode !== "presigned" && mode !== "fetch") throw new Error(`unknown workload ${mode}`);
const count = Number(countText);
const concurrency = Number(concurrencyText);
const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });
const fetchKeepAlive: typeof fetch = (input, init) => fetch(input, { ...init, dispatcher } as RequestInit);

const challenge = await fetchKeepAlive(url);
await challenge.arrayBuffer();
const header = challenge.headers.get("payment-required");
if (challenge.status !== 402 || !header)
  throw new Error(`expected a 402 from ${url}, got ${challenge.status}`);
const paymentRequired = decodePaymentRequiredHeader(header);

type Partial = Awaited<ReturnType<SchemeNetworkClient["createPaymentPayload"]>>;

/**
 * The exact EVM scheme with its signatures made ahead: while `signing` it signs (and keeps) as the SDK's scheme
 * does; then each call takes the next kept one, for the requirement @x402/fetch selected from that call's 402.
 */
class PresignedExactScheme implements SchemeNetworkClient {
  readonly scheme = "exact";
  signing = true;
  private readonly inner = new ExactEvmScheme(privateKeyToAccount(generatePrivateKey()));
  private readonly kept: Partial[] = [];
  /** The SDK's spend controls look the asset up through the scheme. */
  readonly findDefaultAsset = this.inner.findDefaultAsset?.bind(this.inner);
  async createPaymentPayload(version: number, requirements: PaymentRequirements): Promise<Partial> {
    if (this.signing) {
      const signed = await this.inner.createPaymentPayload(version, requirements);
      this.kept.push(signed);
      return signed;
    }
    const next = this.kept.pop();
    if (!next) throw new Error("more calls than payments signed");
    return next;
  }
}

const scheme = new PresignedExactScheme();
const client = new x402Client().register("eip155:*", scheme);
const signed: string[] = [];
for (let i = 0; i < count; i++) {
  const payload = await client.createPaymentPayload(paymentRequired);
  signed.push(encodePaymentSignatureHeader(payload));
}
scheme.signing = false;
const payWithFetch = wrapFetchWithPayment(fetchKeepAlive, client);
process.stdout.write(`${JSON.stringify({ signed: count, signatureBytes: signed[0]?.length ?? 0 })}\n`);
const go = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => go.once("line", () => resolve()));
go.close();
process.stdin.destroy();

/** One paid call of the workload. */
function call(i: number): Promise<Response> {
  if (mode === "fetch") return payWithFetch(url);
  return fetchKeepAlive(url, { headers: { "payment-signature": signed[i] as string } });
}

const statuses: Record<string, number> = {};
const latencies: number[] = [];
let next = 0;
const started = performance.now();
async function buyer(): Promise<void> {
  while (next < count) {
    const i = next++;
    const at = performance.now();
    const response = await call(i);
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
