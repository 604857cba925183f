// For the company routes' end-to-end tests: a funded buyer, a purchase through the fetch-on-miss queue, and a
// request refused before payment.
import assert from "node:assert/strict";
import { newBuyer, payingFetch, type TestService } from "../../../../test/harness.ts";
import { creditWallet } from "../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../x402/shared/networks.ts";

export type ErrorBody = Record<string, unknown> & { error?: string; charged?: boolean; parameter?: string };
/** What a funded buyer holds, in USDC's smallest unit. */
export const FUNDED = 1_000_000n;

export async function fundedBuyer(service: TestService) {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}

export function balanceOf(service: TestService, address: string): Promise<bigint> {
  return service.store.localUsdc.balance(NETWORKS.base.caip2, address);
}

export async function refusedBeforePayment(service: TestService, path: string, parameter: string) {
  const response = await fetch(`${service.url}${path}`);
  assert.equal(response.status, 400, path);
  assert.equal(response.headers.get("payment-required"), null);
  assert.equal(((await response.json()) as ErrorBody).parameter, parameter, path);
}

/** A request with no parameters at all is an indexer's probe: it gets the route's 402, not a 400. */
export async function bareProbeGets402(service: TestService, path: string) {
  const response = await fetch(`${service.url}${path}`);
  assert.equal(response.status, 402, path);
  assert.ok(response.headers.get("payment-required"), path);
  await response.arrayBuffer();
}

/**
 * Runs the queued jobs here and waits for any the service's own worker loop took first (an upstream's request
 * spacing can hold such a job for a second after this test's drain found the queue empty).
 */
async function jobsFinished(service: TestService): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await service.worker.drain();
    const open = await service.store.db
      .selectFrom("jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("state", "in", ["queued", "running"])
      .where("run_at", "<=", new Date().toISOString())
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** 402 unpaid, then 404 not_cached (not charged), then the company once the queued job ran, charged once. */
export async function buyAfterQueue(service: TestService, path: string, price = 5000n) {
  const url = `${service.url}${path}`;
  assert.equal((await fetch(url)).status, 402);
  const buyer = await fundedBuyer(service);
  const miss = await payingFetch(buyer)(url);
  assert.equal(miss.status, 404);
  const missBody = (await miss.json()) as ErrorBody;
  assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
  assert.equal(await balanceOf(service, buyer.address), FUNDED);
  await jobsFinished(service);
  const hit = await payingFetch(buyer)(url);
  assert.equal(hit.status, 200);
  assert.equal(await balanceOf(service, buyer.address), FUNDED - price);
  return (await hit.json()) as ErrorBody;
}
