// Bench child: paying buyers for the paid-path bench, kept running across its rounds. Commands arrive as JSON
// lines on stdin, answers leave as JSON lines on stdout:
//   {"prepare":{"url":…,"count":…}}  reads the URL's 402 (first time), signs what the next `count` calls need
//                                     (each payment its own nonce, as a buyer's wallet would), answers
//                                     {"prepared":count,"signatureBytes":…}
//   {"go":true}                       makes the prepared calls with `concurrency` buyers over keep-alive
//                                     connections, answers {"done":true,"statuses":…,"perSecond":…,"p50Ms":…,…}
// A payment signed once is used once per server (each server keeps its own nonces; the stand-in facilitator
// accepts everything), so one signing serves every server of a round. Two workloads:
//   presigned  each call is the paid request alone, its PAYMENT-SIGNATURE encoded before the clock starts;
//   fetch      each call is what @x402/fetch's wrapFetchWithPayment sends: the unpaid request, then, from the
//              402 it got (parsed by the SDK's client on every call), the paid retry with the PAYMENT-SIGNATURE
//              that echoes the accepted requirement, the resource and every extension of that 402. Only the
//              EIP-3009 signature itself is made before the clock starts (the buyers' CPU is not measured).
// With a third argument, a Solana RPC URL, the buyers pay on Solana (@x402/svm's exact client: a transaction signed
// by a fresh buyer key, the USDC mint and blockhash read from that RPC) instead of Base.
//   node bench/servers/paid-load.ts <presigned|fetch> <concurrency> [<solana RPC URL>]
import { createInterface } from "node:readline";
import { generateKeyPairSigner } from "@solana/kit";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { Agent } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { percentile } from "../common.ts";

const [mode, concurrencyText, solanaRpcUrl] = process.argv.slice(2) as [string, string, string | undefined];
if (mode !== "presigned" && mode !== "fetch") throw new Error(`unknown workload ${mode}`);
const concurrency = Number(concurrencyText);
const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });
const fetchKeepAlive: typeof fetch = (input, init) => fetch(input, { ...init, dispatcher } as RequestInit);

const solanaBuyer = await generateKeyPairSigner();

type Signed = Awaited<ReturnType<SchemeNetworkClient["createPaymentPayload"]>>;

/**
 * The exact EVM scheme with its signatures made ahead: payments signed for a requirement are kept, and each
 * server (URL) takes them in turn from its own cursor. Signing while `signing` is off (during a measured run)
 * still works, and is counted, so that a run which needed it says so.
 */
class PresignedExactScheme implements SchemeNetworkClient {
  readonly scheme = "exact";
  signing = true;
  signedDuringRun = 0;
  url = "";
  private readonly inner: SchemeNetworkClient = solanaRpcUrl
    ? new ExactSvmScheme(solanaBuyer, { rpcUrl: solanaRpcUrl })
    : new ExactEvmScheme(privateKeyToAccount(generatePrivateKey()));
  private readonly kept = new Map<string, Signed[]>();
  private readonly cursors = new Map<string, number>();
  /** The SDK's spend controls look the asset up through the scheme. */
  readonly findDefaultAsset = this.inner.findDefaultAsset?.bind(this.inner);

  async createPaymentPayload(version: number, requirements: PaymentRequirements): Promise<Signed> {
    const key = JSON.stringify([version, requirements]);
    const kept = this.kept.get(key) ?? [];
    this.kept.set(key, kept);
    const cursorKey = `${this.url} ${key}`;
    const at = this.cursors.get(cursorKey) ?? 0;
    this.cursors.set(cursorKey, at + 1);
    if (at < kept.length) return kept[at] as Signed;
    if (!this.signing) this.signedDuringRun++;
    const signed = await this.inner.createPaymentPayload(version, requirements);
    kept.push(signed);
    return signed;
  }

  /** Makes sure the next `count` payments for `requirements` at the current URL are signed. */
  async signAhead(version: number, requirements: PaymentRequirements, count: number): Promise<void> {
    const key = JSON.stringify([version, requirements]);
    const kept = this.kept.get(key) ?? [];
    this.kept.set(key, kept);
    const needed = (this.cursors.get(`${this.url} ${key}`) ?? 0) + count;
    while (kept.length < needed) kept.push(await this.inner.createPaymentPayload(version, requirements));
  }
}

const scheme = new PresignedExactScheme();
const client = new x402Client().register(solanaRpcUrl ? "solana:*" : "eip155:*", scheme);
const payWithFetch = wrapFetchWithPayment(fetchKeepAlive, client);
const challenges = new Map<string, PaymentRequired>();

async function challengeOf(url: string): Promise<PaymentRequired> {
  const known = challenges.get(url);
  if (known) return known;
  const response = await fetchKeepAlive(url);
  await response.arrayBuffer();
  const header = response.headers.get("payment-required");
  if (response.status !== 402 || !header)
    throw new Error(`expected a 402 from ${url}, got ${response.status}`);
  const decoded = decodePaymentRequiredHeader(header);
  challenges.set(url, decoded);
  return decoded;
}

let prepared: { url: string; count: number; headers: string[] } | undefined;

const signatureBytes = new Map<string, number>();

/** The size of a PAYMENT-SIGNATURE header for `url` (one payment spent on it, once per URL). */
async function signatureBytesOf(url: string, paymentRequired: PaymentRequired): Promise<number> {
  const known = signatureBytes.get(url);
  if (known !== undefined) return known;
  const bytes = encodePaymentSignatureHeader(await client.createPaymentPayload(paymentRequired)).length;
  signatureBytes.set(url, bytes);
  return bytes;
}

async function prepare(url: string, count: number): Promise<void> {
  const paymentRequired = await challengeOf(url);
  scheme.url = url;
  scheme.signing = true;
  const bytes = await signatureBytesOf(url, paymentRequired);
  const headers: string[] = [];
  if (mode === "presigned") {
    for (let i = 0; i < count; i++)
      headers.push(encodePaymentSignatureHeader(await client.createPaymentPayload(paymentRequired)));
  } else {
    const accepted = paymentRequired.accepts[0] as PaymentRequirements;
    await scheme.signAhead(paymentRequired.x402Version, accepted, count);
  }
  prepared = { url, count, headers };
  say({ prepared: count, signatureBytes: bytes });
}

async function run(): Promise<void> {
  if (!prepared) throw new Error("go before prepare");
  const { url, count, headers } = prepared;
  prepared = undefined;
  scheme.signing = false;
  scheme.signedDuringRun = 0;
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  async function buyer(): Promise<void> {
    while (next < count) {
      const i = next++;
      const at = performance.now();
      const response =
        mode === "fetch"
          ? await payWithFetch(url)
          : await fetchKeepAlive(url, { headers: { "payment-signature": headers[i] as string } });
      await response.arrayBuffer();
      latencies.push(performance.now() - at);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, buyer));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  say({
    done: true,
    statuses,
    seconds,
    perSecond: count / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    signedDuringRun: scheme.signedDuringRun,
  });
}

function say(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const commands = createInterface({ input: process.stdin });
for await (const line of commands) {
  const command = JSON.parse(line) as { prepare?: { url: string; count: number }; go?: boolean };
  if (command.prepare) await prepare(command.prepare.url, command.prepare.count);
  else if (command.go) await run();
}
await dispatcher.close();
process.exit(0);
