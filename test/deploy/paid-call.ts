// One paid call against a node in a container, as a buyer of the embedded local facilitator makes it.
import assert from "node:assert/strict";
import { decodeBase64Json, newBuyer, payingFetch } from "../harness.ts";

/** A buyer credited through `npm run faucet` inside `container` (the local facilitator's pretend USDC). */
export async function creditedBuyer(
  podman: (args: string[]) => Promise<string>,
  container: string,
): Promise<ReturnType<typeof newBuyer>> {
  const buyer = newBuyer();
  const credited = await podman([
    "exec",
    container,
    "npm",
    "run",
    "--silent",
    "faucet",
    "--",
    buyer.address,
    "1",
  ]);
  assert.match(credited, /balance 1 USD/);
  return buyer;
}

/**
 * Pays for `url` and returns the 200 answer's body. Until the warmers have filled the cache a paid call is a
 * 404 that charges nothing, so it is repeated for up to two minutes.
 */
export async function paidCall(buyer: ReturnType<typeof newBuyer>, url: string): Promise<unknown> {
  assert.equal((await fetch(url)).status, 402, `${url} without payment`);
  const deadline = Date.now() + 120_000;
  let response = await payingFetch(buyer)(url);
  while (response.status === 404 && Date.now() < deadline) {
    const refused = (await response.json()) as { error: string; charged: boolean };
    assert.deepEqual([refused.error, refused.charged], ["not_cached", false]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    response = await payingFetch(buyer)(url);
  }
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(decodeBase64Json(response.headers.get("payment-response")).success, true);
  return response.json();
}
