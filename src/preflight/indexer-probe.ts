// What an indexer (x402scan, the CDP Bazaar, agentcash) sees at PUBLIC_URL: it reads /openapi.json, then probes
// each paid operation bare (GET with no query, POST with {}) and lists the route only if the answer is a usable
// x402 v2 challenge. Each route it could not list is one row, with why.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { extractDiscoveryInfoFromExtension } from "@x402/extensions/bazaar";
import type { PreflightVerdict } from "../catalog/product.ts";
import { errorText } from "../json.ts";

/** nginx's default proxy buffer is 4–8 KB; a larger PAYMENT-REQUIRED is a 502 behind it. */
export const HEADER_LIMIT = 8192;
const CONCURRENCY = 6;

export interface IndexerFinding {
  route: string;
  verdict: PreflightVerdict;
}

interface Operation {
  method: string;
  path: string;
}

function paidOperations(openapi: unknown): Operation[] {
  const paths = (openapi as { paths?: Record<string, Record<string, Record<string, unknown>>> }).paths ?? {};
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op && typeof op === "object" && "x-payment-info" in op)
      .map(([method]) => ({ method: method.toUpperCase(), path })),
  );
}

/** Why an indexer would not list this route from its bare probe, or undefined when it would. */
export async function judgeProbe(response: Response): Promise<string | undefined> {
  const header = response.headers.get("payment-required");
  await response.arrayBuffer().catch(() => undefined);
  if (response.status !== 402) {
    return `answers its bare probe with ${response.status}, not 402: an indexer takes the route for unprotected (a route that validates before its paywall)`;
  }
  if (!header) return "its 402 has no PAYMENT-REQUIRED header (x402 v2 carries the requirements there)";
  if (header.length > HEADER_LIMIT) {
    return `PAYMENT-REQUIRED is ${header.length} bytes: proxies with default buffers (nginx 4–8 KB) answer 502`;
  }
  let required: { x402Version?: unknown; accepts?: unknown[]; extensions?: Record<string, unknown> };
  try {
    required = decodePaymentRequiredHeader(header) as typeof required;
  } catch (error) {
    return `PAYMENT-REQUIRED does not decode: ${errorText(error)}`;
  }
  if (required.x402Version !== 2 || !required.accepts?.length)
    return "PAYMENT-REQUIRED is not an x402 v2 challenge";
  if (!required.extensions?.bazaar)
    return "the 402 declares no Bazaar discovery extension (input and output)";
  try {
    extractDiscoveryInfoFromExtension(required.extensions.bazaar as never, true);
  } catch (error) {
    return `the SDK's Bazaar validator refuses its declaration: ${String(error).slice(0, 200)}`;
  }
  return undefined;
}

async function probe(base: string, op: Operation, fetchImpl: typeof fetch, timeoutMs: number) {
  const response = await fetchImpl(`${base}${op.path}`, {
    method: op.method,
    headers: {
      accept: "application/json",
      ...(op.method === "POST" ? { "content-type": "application/json" } : {}),
    },
    ...(op.method === "POST" ? { body: "{}" } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return judgeProbe(response);
}

/** One finding per route an indexer could not list, and a summary; a failure to read the OpenAPI is one row. */
export async function probeAsIndexer(
  publicUrl: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): Promise<IndexerFinding[]> {
  let operations: Operation[];
  try {
    const response = await fetchImpl(`${publicUrl}/openapi.json`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    operations = paidOperations(await response.json());
  } catch (error) {
    return [
      {
        route: "/openapi.json",
        verdict: {
          state: "warn",
          detail: `could not read ${publicUrl}/openapi.json (${errorText(error)}): routes not probed`,
          fix: "Start the service and set PUBLIC_URL to the address indexers reach, then run the preflight again.",
        },
      },
    ];
  }
  const findings: IndexerFinding[] = [];
  const queue = [...operations];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let op = queue.shift(); op; op = queue.shift()) {
        const why = await probe(publicUrl, op, fetchImpl, timeoutMs).catch(
          (error: unknown) => `no answer: ${errorText(error)}`,
        );
        if (why) {
          findings.push({
            route: `${op.method} ${op.path}`,
            verdict: {
              state: "blocker",
              detail: why,
              fix: "Indexers will not list this route until its bare probe answers 402.",
            },
          });
        }
      }
    }),
  );
  findings.sort((a, b) => a.route.localeCompare(b.route));
  findings.unshift({
    route: "paid routes",
    verdict: {
      state: findings.length ? "blocker" : "ok",
      detail: `${operations.length - findings.length} of ${operations.length} paid routes answer an indexer's bare probe with a listable x402 v2 challenge`,
    },
  });
  return findings;
}
