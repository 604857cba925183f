// What an indexer (x402scan, the CDP Bazaar, agentcash) sees at PUBLIC_URL: it reads /openapi.json, then probes
// each paid operation bare (GET with no query, POST with {}) and lists the route only if the answer is a usable
// x402 v2 challenge. Each route it could not list is one row, with why. The same probe sent to the service's own
// listener tells a proxy's refusal (502 or 400 through PUBLIC_URL, 402 here) from the service's, and measures
// each 402's head on the wire against the 4 KB a default nginx holds.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { extractDiscoveryInfoFromExtension } from "@x402/extensions/bazaar";
import type { PreflightVerdict } from "../catalog/product.ts";
import { errorText } from "../json.ts";
import { RESPONSE_HEAD_LIMIT } from "../x402/seller/challenge.ts";
import { type ResponseHead, readResponseHead } from "./response-head.ts";

const CONCURRENCY = 6;

/** The proxy settings that hold a response head, as a fix names them. */
const PROXY_BUFFER_FIX =
  "Raise the proxy's response header buffer: nginx `proxy_buffer_size 16k; proxy_buffers 8 16k; proxy_busy_buffers_size 32k;`, Apache `ProxyPass … responsefieldsize=16384` (older releases: `LimitRequestFieldSize 16384`) and `ProxyIOBufferSize 65536`, HAProxy `tune.bufsize 32768`.";

interface IndexerFinding {
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
async function judgeProbe(response: Response): Promise<string | undefined> {
  const header = response.headers.get("payment-required");
  await response.arrayBuffer().catch(() => undefined);
  if (response.status !== 402) {
    return `answers its bare probe with ${response.status}, not 402: an indexer takes the route for unprotected (a route that validates before its paywall)`;
  }
  if (!header) return "its 402 has no PAYMENT-REQUIRED header (x402 v2 carries the requirements there)";
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

function bareRequest(op: Operation) {
  return {
    method: op.method,
    headers: {
      accept: "application/json",
      ...(op.method === "POST" ? { "content-type": "application/json" } : {}),
    },
    ...(op.method === "POST" ? { body: "{}" } : {}),
  };
}

async function probe(base: string, op: Operation, fetchImpl: typeof fetch, timeoutMs: number) {
  const response = await fetchImpl(`${base}${op.path}`, {
    ...bareRequest(op),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return judgeProbe(response);
}

/** The service's own answer to the bare probe, its head measured on the wire; undefined when it cannot tell. */
function probeLocal(localUrl: string | undefined, op: Operation, timeoutMs: number) {
  if (!localUrl) return Promise.resolve(undefined);
  return readResponseHead(`${localUrl}${op.path}`, { ...bareRequest(op), timeoutMs }).catch(() => undefined);
}

/** What the route's row says, if anything: why indexers cannot list it, or that its 402 is too big for a proxy. */
function judgeRoute(
  publicWhy: string | undefined,
  local: ResponseHead | undefined,
): PreflightVerdict | undefined {
  if (publicWhy && local?.status === 402) {
    return {
      state: "blocker",
      detail: `through PUBLIC_URL ${publicWhy.replace(/^answers its bare probe with/, "it answers")}, while the service's own listener answers 402 (a ${local.bytes}-byte response head): the proxy in front refuses the 402, most often because its header block passes the proxy's buffer`,
      fix: PROXY_BUFFER_FIX,
    };
  }
  if (publicWhy) {
    return {
      state: "blocker",
      detail: publicWhy,
      fix: "Indexers will not list this route until its bare probe answers 402.",
    };
  }
  if (local?.status === 402 && local.bytes > RESPONSE_HEAD_LIMIT) {
    return {
      state: "warn",
      detail: `its 402's response head is ${local.bytes} bytes: a proxy with default buffers (nginx 4 KB) answers 502`,
      fix: PROXY_BUFFER_FIX,
    };
  }
  return undefined;
}

/** One finding per route an indexer could not list, and a summary; a failure to read the OpenAPI is one row. */
export async function probeAsIndexer(
  publicUrl: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
  /** The service's own listener (plain http on this host), when it runs here. */
  localUrl?: string,
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
  const heads: number[] = [];
  const queue = [...operations];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let op = queue.shift(); op; op = queue.shift()) {
        const why = await probe(publicUrl, op, fetchImpl, timeoutMs).catch(
          (error: unknown) => `no answer: ${errorText(error)}`,
        );
        const local = await probeLocal(localUrl, op, timeoutMs);
        if (local?.status === 402) heads.push(local.bytes);
        const verdict = judgeRoute(why, local);
        if (verdict) findings.push({ route: `${op.method} ${op.path}`, verdict });
      }
    }),
  );
  findings.sort((a, b) => a.route.localeCompare(b.route));
  const blocked = findings.filter((f) => f.verdict.state === "blocker").length;
  const largest = heads.length
    ? `; the largest 402 response head on the service's own listener is ${Math.max(...heads)} bytes (a default nginx holds ${RESPONSE_HEAD_LIMIT})`
    : "";
  findings.unshift({
    route: "paid routes",
    verdict: {
      state: blocked ? "blocker" : findings.length ? "warn" : "ok",
      detail: `${operations.length - blocked} of ${operations.length} paid routes answer an indexer's bare probe with a listable x402 v2 challenge${largest}`,
    },
  });
  return findings;
}
