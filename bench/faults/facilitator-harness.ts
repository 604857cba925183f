// The facilitator fault scenarios' stand: a paycall service (in process, SQLite) with two stub facilitators in
// FACILITATOR_URL, buyers paying one after another before and after the fault is injected into the first (or
// both), and the row: paid answers delivered against settlements charged (the ledger and the stubs agree).
import { setTimeout as sleep } from "node:timers/promises";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../test/harness.ts";
import { type StubFacilitator, startStubFacilitator } from "../../test/stub-facilitator.ts";
import { STUB_PAY_TO } from "../../test/stubbed-service.ts";
import { testFamily } from "../../test/test-family.ts";
import type { FaultRow } from "./row.ts";

export const ITEM = "/v1/test/item?mode=ok";

/** Settled ledger rows (the ledger's list is capped, hence the large limit). */
export async function settledRows(service: TestService): Promise<number> {
  return (await service.store.ledger.list({ state: "settled", limit: 1_000_000 })).length;
}

export interface Stand {
  a: StubFacilitator;
  b: StubFacilitator;
  service: TestService;
}

export async function withStand<T>(
  env: Record<string, string>,
  run: (stand: Stand) => Promise<T>,
): Promise<T> {
  const a = await startStubFacilitator();
  const b = await startStubFacilitator();
  const service = await startTestService(
    {
      FACILITATOR_URL: `${a.url},${b.url}`,
      PAY_TO_EVM: STUB_PAY_TO,
      WORKER_POLL_MS: "60000",
      FACILITATOR_TIMEOUT_MS: "1000",
      FACILITATOR_FAILURE_THRESHOLD: "3",
      FACILITATOR_OPEN_MS: "2000",
      ...env,
    },
    [testFamily],
  );
  try {
    return await run({ a, b, service });
  } finally {
    await service.stop();
    await a.close();
    await b.close();
  }
}

/** Paid calls one after another: their statuses, and each one's time. */
export async function pay(
  service: TestService,
  count: number,
): Promise<Array<{ status: number; ms: number }>> {
  const results: Array<{ status: number; ms: number }> = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await payingFetch(newBuyer())(`${service.url}${ITEM}`);
    await response.arrayBuffer();
    results.push({ status: response.status, ms: performance.now() - started });
  }
  return results;
}

/**
 * Buys `before` calls, injects the fault, buys `after`; the row counts the calls after the fault, recovery is
 * the time from the fault to the first paid answer after it.
 */
export async function facilitatorFault(
  fault: string,
  inject: (stand: Stand) => Promise<void>,
  options: {
    before?: number;
    after?: number;
    env?: Record<string, string>;
    /** A pause after each call after the fault (so a timed recovery falls within the calls). */
    paceMs?: number;
  } = {},
): Promise<FaultRow> {
  return withStand(options.env ?? {}, async (stand) => {
    await pay(stand.service, options.before ?? 5);
    const injectedAt = performance.now();
    await inject(stand);
    const calls: Array<{ status: number; ms: number; at: number }> = [];
    for (let i = 0; i < (options.after ?? 30); i++) {
      const [call] = await pay(stand.service, 1);
      calls.push({ ...(call as { status: number; ms: number }), at: performance.now() });
      if (options.paceMs) await sleep(options.paceMs);
    }
    const firstPaid = calls.find((c) => c.status === 200);
    const settled = await settledRows(stand.service);
    const stubSettles = stand.a.calls.settle + stand.b.calls.settle;
    const delivered = calls.filter((c) => c.status === 200).length + (options.before ?? 5);
    return {
      fault,
      attempted: calls.length,
      delivered: calls.filter((c) => c.status === 200).length,
      charged: settled - (options.before ?? 5),
      refused: calls.filter((c) => c.status !== 200).length,
      worstLatencyMs: Math.round(Math.max(0, ...calls.map((c) => c.ms))),
      recoveryMs: firstPaid ? Math.round(firstPaid.at - injectedAt) : null,
      notes: `settlements at the stubs ${stubSettles}, settled rows ${settled}, paid answers ${delivered}`,
    };
  });
}
