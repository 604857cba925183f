// End to end over HTTP: a paying buyer, free samples and status, and 400s before payment on every endpoint.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { edgarFamily } from "./index.ts";

// J&J is recorded but not warmed: it is fetched on request.
const ENV = { EDGAR_TICKERS: "AAPL,MSFT", LOG_LEVEL: "silent", UPSTREAMS: "replay", WORKER_POLL_MS: "50" };

describe("EDGAR over HTTP with payments", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(ENV, [edgarFamily(loadConfig(ENV))]);
    await service.worker.runWarmer("edgar.tickers");
    await service.worker.runWarmer("edgar.companies");
  });
  after(() => service.stop());

  const get = (path: string) => fetch(`${service.url}${path}`);

  it("a buyer pays for /v1/edgar/company?ticker=AAPL and gets the profile, a receipt and one ledger row", async () => {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const response = await payingFetch(buyer)(`${service.url}/v1/edgar/company?ticker=AAPL`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.cik, "0000320193");
    assert.equal(body.name, "Apple Inc.");
    assert.equal((body.filings as unknown[]).length, 19);
    assert.match(String(body.notice), /not live data/);
    const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
    assert.equal(receipt.success, true);
    const rows = (await service.store.ledger.list()).filter((r) => r.sku === "edgar.company");
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.state, "settled");
    assert.equal(rows[0]?.amount, "5000");
    assert.equal(
      await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address),
      1_000_000n - 5000n,
    );
  });

  it("an uncached company is queued and not charged, then sold once the worker fetched it", async () => {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const url = `${service.url}/v1/edgar/financials?ticker=JNJ&tags=revenue&period=annual`;
    const miss = await payingFetch(buyer)(url);
    assert.equal(miss.status, 404);
    const body = (await miss.json()) as Record<string, unknown>;
    assert.equal(body.error, "not_cached");
    assert.equal(body.charged, false);
    assert.ok(Number(body.retryAfterSec) > 0);
    assert.equal(await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address), 1_000_000n);

    for (
      let i = 0;
      i < 200 && (await service.store.jobs.get("edgar.company", "0000200406"))?.state !== "done";
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    const hit = await payingFetch(buyer)(url);
    assert.equal(hit.status, 200);
    const financials = (await hit.json()) as { facts: { revenue: { annual: Array<{ value: number }> } } };
    assert.deepEqual(
      financials.facts.revenue.annual.map((e) => e.value / 1e6),
      [70100, 71900, 76500, 81600, 82100],
    );
    assert.equal(
      await service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address),
      1_000_000n - 5000n,
    );
  });

  it("serves the free samples and the free status", async () => {
    for (const path of [
      "/v1/edgar/company?ticker=AAPL&sample=1",
      "/v1/edgar/filing?accession=0000320193-24-000123&sample=1",
      "/v1/edgar/financials?ticker=AAPL&tags=revenue%2CnetIncome%2CepsDiluted&period=annual&sample=1",
      "/v1/edgar/search?q=apple&sample=1",
      "/v1/edgar/status",
    ]) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      await response.body?.cancel();
    }
    const status = (await (await get("/v1/edgar/status")).json()) as {
      companies: { cached: number };
      fresh: boolean;
    };
    assert.equal(status.companies.cached, 3);
    assert.equal(status.fresh, true);
  });

  it("answers 400 naming the parameter, before payment, for bad input on every endpoint", async () => {
    const cases: Array<[string, string]> = [
      ["/v1/edgar/company?ticker=AAPL&cik=320193", "cik"],
      ["/v1/edgar/company?cik=abc", "cik"],
      ["/v1/edgar/company?ticker=", "ticker"],
      ["/v1/edgar/company?ticker=ZZZZ", "ticker"],
      ["/v1/edgar/filing?accession=0000320193-25-00007", "accession"],
      ["/v1/edgar/filing?accession=0000320193-25-000079&ticker=AAPL&cik=320193", "cik"],
      ["/v1/edgar/financials?ticker=AAPL&tags=EBITDA", "tags"],
      ["/v1/edgar/financials?ticker=AAPL&period=monthly", "period"],
      ["/v1/edgar/financials?cik=1&ticker=MSFT", "cik"],
      ["/v1/edgar/search?q=apple&limit=51", "limit"],
      ["/v1/edgar/search?q=apple&limit=0", "limit"],
      ["/v1/edgar/search?q=apple&limit=ten", "limit"],
      ["/v1/edgar/search?q=apple&page=2", "page"],
    ];
    for (const [path, parameter] of cases) {
      const response = await get(path);
      const body = (await response.json()) as { parameter?: string; charged?: boolean };
      assert.equal(response.status, 400, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, path);
      assert.equal(body.charged, false);
      assert.equal(response.headers.get("payment-required"), null, path);
    }
  });

  it("asks for payment for a valid request", async () => {
    const response = await get("/v1/edgar/filing?accession=000032019325000079");
    assert.equal(response.status, 402);
    assert.ok(response.headers.get("payment-required"));
    await response.body?.cancel();
  });
});
