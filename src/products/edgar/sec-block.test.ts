// While SEC's ten-minute block holds (a 429 paused the "sec" budget on every node), a buyer whose answer needs
// SEC gets 503 with Retry-After, not charged, instead of a 404 that promises the data in a minute.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { RECORDED_TICKERS } from "./harness.test-helper.ts";
import { edgarFamily } from "./index.ts";

let service: TestService;

before(async () => {
  const env = { EDGAR_TICKERS: RECORDED_TICKERS };
  service = await startTestService(env, [edgarFamily(loadConfig({ UPSTREAMS: "replay", ...env }))]);
});
after(() => service.stop());

test("an uncached company during SEC's block: 503 with Retry-After, nothing charged", async () => {
  await service.store.upstreamBudgets.pause("sec", Date.now() + 600_000, "HTTP 429 from SEC");
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const response = await payingFetch(buyer)(`${service.url}/v1/edgar/company?cik=0000001750`);
  assert.equal(response.status, 503);
  const retryAfter = Number(response.headers.get("retry-after"));
  assert.ok(retryAfter > 500 && retryAfter <= 600, `Retry-After ${retryAfter}`);
  const body = (await response.json()) as { charged: boolean; retryAfterSec: number; message: string };
  assert.equal(body.charged, false);
  assert.match(body.message, /blocks them for about ten minutes/);
  assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address), 1_000_000n);
});
