// A steady stream of paid calls, each with a payment signed beforehand (so the stream does not depend on the
// service answering its 402 meanwhile), and what each one got: for the fault tests and `npm run faults`.
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { Agent } from "undici";
import { newBuyer } from "./harness.ts";

export interface PaidResult {
  /** When the answer arrived (ms since the epoch). */
  at: number;
  url: string;
  /** 0: no answer within the bound, or the connection failed. */
  status: number;
  ms: number;
  error?: string;
  charged?: unknown;
  retryAfter: string | null;
  paymentResponse: boolean;
  /** The settlement's transaction, from PAYMENT-RESPONSE. */
  transaction?: string;
}

export interface PaidLoad {
  /** The answers so far, in the order they arrived. */
  readonly results: PaidResult[];
  /** Stops sending and resolves once the calls under way have answered. */
  stop: () => Promise<PaidResult[]>;
}

/** `count` PAYMENT-SIGNATURE headers for `url`, from one new buyer, signed against one 402. */
export async function presignedHeaders(url: string, count: number): Promise<string[]> {
  const challenge = await fetch(url);
  if (challenge.status !== 402) throw new Error(`${url} answered ${challenge.status}, not 402`);
  const body = await challenge.text();
  const headers = [...challenge.headers];
  let signed: string | undefined;
  const capture: typeof fetch = async (input, init) => {
    signed = new Request(input, init).headers.get("payment-signature") ?? undefined;
    return signed ? new Response("{}", { status: 200 }) : new Response(body, { status: 402, headers });
  };
  const pay = wrapFetchWithPayment(
    capture,
    new x402Client().register("eip155:*", new ExactEvmScheme(newBuyer())),
  );
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    signed = undefined;
    await pay(url);
    if (!signed) throw new Error(`no payment was signed for ${url}`);
    out.push(signed);
  }
  return out;
}

/**
 * Sends the headers, one call each, to the URLs in turn, `concurrency` at a time; each call bounded. A lane
 * starts a call at most every `paceMs` (refusals come back in milliseconds and would use the headers up).
 */
export function paidLoad(
  urls: string[],
  headers: string[],
  options: { concurrency: number; timeoutMs?: number; paceMs?: number },
): PaidLoad {
  const results: PaidResult[] = [];
  const timeoutMs = options.timeoutMs ?? 20_000;
  const paceMs = options.paceMs ?? 0;
  let stopped = false;
  let next = 0;
  const lane = async () => {
    while (!stopped && next < headers.length) {
      const i = next++;
      const url = urls[i % urls.length] as string;
      const started = Date.now();
      results.push(await paidCall(url, headers[i] as string, timeoutMs));
      const wait = paceMs - (Date.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  const lanes = Array.from({ length: options.concurrency }, lane);
  return {
    results,
    stop: async () => {
      stopped = true;
      await Promise.all(lanes);
      return results;
    },
  };
}

// A connection per call: the service closes idle keep-alive connections within 100 ms, and a call sent on one
// it is closing fails with a reset that says nothing about the fault under test.
const FRESH_CONNECTIONS = new Agent({ pipelining: 0 });

async function paidCall(url: string, header: string, timeoutMs: number): Promise<PaidResult> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      headers: { "payment-signature": header },
      signal: AbortSignal.timeout(timeoutMs),
      dispatcher: FRESH_CONNECTIONS,
    });
    const text = await response.text();
    const paymentResponse = response.headers.get("payment-response");
    let body: { error?: string; charged?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: `not JSON: ${text.slice(0, 200)}` };
    }
    return {
      at: Date.now(),
      url,
      status: response.status,
      ms: performance.now() - started,
      ...(response.status === 200 ? {} : { error: body.error, charged: body.charged }),
      retryAfter: response.headers.get("retry-after"),
      paymentResponse: paymentResponse !== null,
      ...(paymentResponse ? { transaction: transactionOf(paymentResponse) } : {}),
    };
  } catch (error) {
    return {
      at: Date.now(),
      url,
      status: 0,
      ms: performance.now() - started,
      error: String(error),
      retryAfter: null,
      paymentResponse: false,
    };
  }
}

function transactionOf(header: string): string | undefined {
  return (JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { transaction?: string }).transaction;
}
