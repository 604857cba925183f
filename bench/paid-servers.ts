// The servers of the paid benches (paid-path.ts, paid-concurrency.ts): the stand-in facilitator, paycall nodes
// paying through it, and the reference @x402/hono middleware given paycall's 402 content and answer.
import path from "node:path";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { asNpmStart, NPM_START_NODE_FLAGS, type RunningServer, startServer } from "./processes.ts";

export const ROUTE = "/v1/macro/ecb/fx?pair=USD";
export const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
export const REFERENCE = "reference @x402/hono";

/** The facilitator that accepts every payment, on CPU 1, answering verify and settle after the given delays. */
export function startFacilitator(verifyMs = 0, settleMs = 0): Promise<RunningServer> {
  return startServer(
    "facilitator",
    "bench/servers/facilitator.ts",
    [],
    {
      ...process.env,
      BENCH_FACILITATOR_VERIFY_MS: String(verifyMs),
      BENCH_FACILITATOR_SETTLE_MS: String(settleMs),
    },
    [],
    1,
  );
}

/**
 * A paycall node on CPU 0, as `npm start` runs it, paying through `facilitatorUrl`, its ECB cache warm; from
 * another `checkout` of the repository when given (a before/after comparison in one run).
 */
export function startPaycall(
  name: string,
  facilitatorUrl: string,
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
  checkout = ".",
): Promise<RunningServer> {
  return startServer(
    name,
    path.join(checkout, "bench/servers/paycall.ts"),
    [],
    { ...asNpmStart(), FACILITATOR_URL: facilitatorUrl, PAY_TO_EVM: PAY_TO, BENCH_PAYCALL_WARM: "1", ...env },
    [...NPM_START_NODE_FLAGS, ...nodeArgs],
  );
}

/**
 * The reference on CPU 0 with the SDK's default HTTP facilitator client against `facilitatorUrl`, given the
 * extensions and unpaid body of paycall's 402 (so that its buyers echo the same PAYMENT-SIGNATURE) and paycall's
 * answer for the route (its free sample).
 */
export async function startReference(facilitatorUrl: string, paycallUrl: string): Promise<RunningServer> {
  const challenge = await fetch(`${paycallUrl}${ROUTE}`);
  const header = challenge.headers.get("payment-required");
  if (challenge.status !== 402 || !header) throw new Error(`paycall answered ${challenge.status}, not a 402`);
  const sample = await fetch(`${paycallUrl}${ROUTE}&sample=1`);
  return startServer(REFERENCE, "bench/servers/reference-hono.ts", [], {
    ...process.env,
    BENCH_PAY_TO: PAY_TO,
    BENCH_FACILITATOR_URL: facilitatorUrl,
    BENCH_ROUTE_PATH: ROUTE.split("?")[0],
    BENCH_BODY: await sample.text(),
    BENCH_EXTENSIONS: JSON.stringify(decodePaymentRequiredHeader(header).extensions ?? {}),
    BENCH_UNPAID_BODY: await challenge.text(),
  });
}

/**
 * The requests `startReference` sends the paycall node it copies (its 402 and its free sample), sent to each server
 * at `urls`, so that no contender is measured after requests the others never had. In A/A runs of one checkout with
 * three servers, the node asked cost 1.06–1.24 per paid call of the other node in six runs out of six (0.99 and
 * 1.01 once every server was asked); with PostgreSQL's nodes running too, 1.00–1.06 in four. The cause is not known.
 */
export async function askWhatTheReferenceAsked(urls: string[]): Promise<void> {
  for (const url of urls)
    for (const request of [`${url}${ROUTE}`, `${url}${ROUTE}&sample=1`])
      await (await fetch(request)).arrayBuffer();
}

export interface FacilitatorStats {
  connections: number;
  calls: { verify: number; settle: number; supported: number };
  inFlight: number;
}

export async function facilitatorStats(url: string): Promise<FacilitatorStats> {
  const response = await fetch(`${url}/stats`);
  return (await response.json()) as FacilitatorStats;
}
