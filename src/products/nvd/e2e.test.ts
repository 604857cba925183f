// End to end over HTTP: the NVD family in a real service, paid through the local facilitator.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { NvdCoverageAnswer } from "./coverage.ts";
import { CveSearchAnswer } from "./cve.ts";
import { nvdFamily } from "./index.ts";
import { CVE_LOOKUP_QUEUE } from "./lookup.ts";
import { CveRecordAnswer } from "./record.ts";
import { NvdStatusAnswer } from "./status.ts";

let service: TestService;

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  service = await startTestService(env, [nvdFamily(loadConfig({ UPSTREAMS: "replay", ...env }))]);
  await service.worker.runWarmer("nvd.sync");
  await service.worker.runWarmer("nvd.kev");
});
after(() => service.stop());

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}

const balanceOf = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

describe("/v1/nvd/cve paid end to end", () => {
  it("a keyword search is paid once, answered, receipted and recorded in the ledger", async () => {
    const buyer = await fundedBuyer();
    const response = await payingFetch(buyer)(`${service.url}/v1/nvd/cve?q=edgegate&limit=5`);
    assert.equal(response.status, 200);
    const body = CveSearchAnswer.parse(await response.json());
    assert.deepEqual(
      body.results.map((r) => r.id),
      ["CVE-2026-41001", "CVE-2026-41005"],
    );
    assert.equal(body.limit, 5);
    assert.match(body.notice, /RECORDED SAMPLE, NOT LIVE DATA/);
    const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
    assert.equal(receipt.success, true);
    const rows = (await service.store.ledger.list()).filter(
      (r) => r.payer?.toLowerCase() === buyer.address.toLowerCase(),
    );
    assert.deepEqual(
      rows.map((r) => [r.sku, r.state, r.amount]),
      [["nvd.cve", "settled", "5000"]],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("an uncached id is not charged, is fetched by the worker, and is sold on the next try", async () => {
    const buyer = await fundedBuyer();
    const pay = payingFetch(buyer);
    const miss = await pay(`${service.url}/v1/nvd/cve?id=CVE-2021-44228`);
    assert.equal(miss.status, 404);
    const missBody = (await miss.json()) as Record<string, unknown>;
    assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
    assert.equal(await balanceOf(buyer.address), 1_000_000n);

    for (let i = 0; i < 200; i++) {
      if ((await service.store.jobs.get(CVE_LOOKUP_QUEUE, "CVE-2021-44228"))?.state === "done") break;
      await sleep(25);
    }
    const hit = await pay(`${service.url}/v1/nvd/cve?id=cve-2021-44228`);
    assert.equal(hit.status, 200);
    const record = CveRecordAnswer.parse(await hit.json());
    assert.deepEqual([record.id, record.severity, record.score], ["CVE-2021-44228", "CRITICAL", 10]);
    assert.deepEqual(
      [record.knownExploited, record.kev?.source, record.kev?.dueDate],
      [true, "cisa-kev-catalog", "2021-12-24"],
    );
    assert.equal(await balanceOf(buyer.address), 1_000_000n - 5000n);
  });

  it("the free sample then answers what a buyer gets", async () => {
    const sample = await fetch(`${service.url}/v1/nvd/cve?id=CVE-2021-44228&sample=1`);
    assert.equal(sample.status, 200);
    const body = CveRecordAnswer.parse(await sample.json());
    assert.equal(body.id, "CVE-2021-44228");
  });
});

describe("/v1/nvd/cve bad input: 400 naming the parameter, before payment", () => {
  const cases: Array<[string, string]> = [
    ["id=", "id"],
    ["id=CVE-21-1", "id"],
    ["id=CVE-2021-44228&q=log4j", "q"],
    ["q=", "q"],
    ["q=%21%21%21", "q"],
    [`q=${"x".repeat(201)}`, "q"],
    [`q=${"x".repeat(3000)}`, "q"],
    ["q=xss&limit=0", "limit"],
    ["q=xss&limit=101", "limit"],
    ["q=xss&limit=ten", "limit"],
    ["q=xss&limit=", "limit"],
    ["id=CVE-2021-44228&limit=5", "limit"],
    ["q=xss&q=sql", "q"],
    ["q=xss&severity=high", "severity"],
  ];
  for (const [query, parameter] of cases) {
    it(`?${query.slice(0, 40)} → 400 naming ${parameter}`, async () => {
      const response = await fetch(`${service.url}/v1/nvd/cve?${query}`);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.parameter, parameter);
      assert.equal(body.charged, false);
      assert.ok(String(body.message).length > 0);
    });
  }
});

describe("free NVD endpoints", () => {
  it("/v1/nvd/coverage and /v1/nvd/status answer without payment", async () => {
    const coverage = await fetch(`${service.url}/v1/nvd/coverage`);
    assert.equal(coverage.status, 200);
    const coverageBody = NvdCoverageAnswer.parse(await coverage.json());
    assert.equal(coverageBody.cves.searchable, 5);
    const status = await fetch(`${service.url}/v1/nvd/status`);
    assert.equal(status.status, 200);
    const statusBody = NvdStatusAnswer.parse(await status.json());
    assert.equal(statusBody.warmers[0]?.lastOk, true);
    assert.equal(statusBody.index.loaded, true);
  });

  it("a paid route asks for payment with the free sample named", async () => {
    const response = await fetch(`${service.url}/v1/nvd/cve?q=edgegate`);
    assert.equal(response.status, 402);
    // The header carries the answer schema (Bazaar); fetch clients refuse headers over 16 kB in all.
    assert.ok((response.headers.get("payment-required")?.length ?? 0) < 14_000);
    const body = (await response.json()) as { freeSample: string };
    assert.equal(body.freeSample, `${service.config.publicUrl}/v1/nvd/cve?id=CVE-2021-44228&sample=1`);
  });
});
