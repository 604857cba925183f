// Bench child: many concurrent paying buyers, each a real @x402/fetch client with a wallet of its own (the
// exact EVM scheme of @x402/evm signs every payment as it is asked for: real EIP-3009 signatures, no funds needed
// since the stand-in facilitator accepts every payment). Kept running across the rounds of
// bench/paid-concurrency.ts; each JSON line on stdin is one run, answered by one JSON line on stdout:
//   {"urls":[…],"buyers":N,"warmupSeconds":W,"seconds":T,"drainSeconds":D}
// Buyer i pays urls[i % urls.length] (several nodes: buyers alternate between them), one call after another.
// The buyers start spread over the warm-up; calls started in the next T seconds are the ones measured. Then no
// buyer starts a call; those still running get D seconds to finish, and are then aborted and counted unfinished.
//   node bench/servers/concurrency-load.ts
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { Agent } from "undici";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { percentile } from "../common.ts";

interface Run {
  urls: string[];
  buyers: number;
  warmupSeconds: number;
  seconds: number;
  drainSeconds: number;
}

const wallets: x402Client[] = [];

/** Buyer i's paying fetch: its wallet, kept across runs, over the run's connections. */
function payingFetch(i: number, dispatcher: Agent, signal: AbortSignal): (url: string) => Promise<Response> {
  wallets[i] ??= new x402Client().register(
    "eip155:*",
    new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())),
  );
  return wrapFetchWithPayment(
    (input, init) => fetch(input, { ...init, dispatcher, signal } as RequestInit),
    wallets[i],
  );
}

async function run({ urls, buyers, warmupSeconds, seconds, drainSeconds }: Run) {
  const dispatcher = new Agent({ connections: buyers, keepAliveTimeout: 60_000 });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const abort = new AbortController();
  const started = performance.now();
  const windowStart = started + warmupSeconds * 1000;
  const windowEnd = windowStart + seconds * 1000;
  const statuses: Record<string, number> = {};
  const failures: Record<string, number> = {};
  const latencies: number[] = [];
  let paidInWindow = 0;
  let unfinished = 0;

  async function buyer(i: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, (i / buyers) * warmupSeconds * 1000));
    const pay = payingFetch(i, dispatcher, abort.signal);
    const url = urls[i % urls.length] as string;
    while (performance.now() < windowEnd) {
      const at = performance.now();
      const measured = at >= windowStart;
      let outcome: string;
      try {
        const response = await pay(url);
        await response.arrayBuffer();
        outcome = String(response.status);
      } catch (error) {
        if (abort.signal.aborted) {
          if (measured) unfinished++;
          return;
        }
        outcome = failureName(error);
      }
      const done = performance.now();
      if (outcome === "200" && done >= windowStart && done < windowEnd) paidInWindow++;
      const answered = /^\d+$/.test(outcome);
      if (measured) {
        if (outcome === "200") latencies.push(done - at);
        if (answered) statuses[outcome] = (statuses[outcome] ?? 0) + 1;
        else failures[outcome] = (failures[outcome] ?? 0) + 1;
      }
      // After a refusal or a failed connection a buyer pauses, as one honouring Retry-After would (1 s here).
      if (outcome === "503" || !answered) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  const all = Promise.all(Array.from({ length: buyers }, (_, i) => buyer(i)));
  const drainTimer = setTimeout(() => abort.abort(), windowEnd - started + drainSeconds * 1000);
  await all;
  clearTimeout(drainTimer);
  lag.disable();
  await dispatcher.destroy().catch(() => {});
  latencies.sort((a, b) => a - b);
  // The latency of paid calls; unfinished ones took longer than any finished one: the top of the distribution.
  const ranked = [...latencies, ...Array.from({ length: unfinished }, () => Number.POSITIVE_INFINITY)];
  return {
    done: true,
    paidPerSecond: paidInWindow / seconds,
    statuses,
    failures,
    unfinished,
    p50Ms: ranked.length ? percentile(ranked, 50) : null,
    p99Ms: ranked.length ? percentile(ranked, 99) : null,
    lagMaxMs: lag.max / 1e6,
  };
}

function failureName(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error instanceof Error ? error.name : "error");
}

const commands = createInterface({ input: process.stdin });
for await (const line of commands) {
  const result = await run(JSON.parse(line) as Run);
  // JSON has no infinity: an unfinished percentile is written as null beside the unfinished count.
  process.stdout.write(`${JSON.stringify(result, (_, v) => (v === Number.POSITIVE_INFINITY ? null : v))}\n`);
}
process.exit(0);
