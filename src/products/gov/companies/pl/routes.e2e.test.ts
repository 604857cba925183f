// The Polish and Swiss register routes end to end over HTTP, paid through the local facilitator, on the
// recordings; and the Swiss route in live mode without its credentials.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { payingFetch, startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { companyAnswer } from "../answers.ts";
import {
  type ErrorBody as Body,
  balanceOf,
  bareProbeGets402,
  buyAfterQueue,
  FUNDED,
  fundedBuyer,
  refusedBeforePayment,
} from "../buying.test-helper.ts";
import { govCompaniesFamily } from "../index.ts";

const Answer = companyAnswer().passthrough();
let service: TestService;

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  service = await startTestService(env, [govCompaniesFamily(loadConfig({ UPSTREAMS: "replay", ...env }))]);
});
after(() => service.stop());

describe("GET /v1/gov/pl/companies", () => {
  it("the free sample (a KRS number) answers offline with the KRS attribution and the sample notice", async () => {
    const response = await fetch(`${service.url}/v1/gov/pl/companies?id=0000019193&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual(
      [body.sku, body.found, body.id, body.name],
      ["gov.pl.companies", true, "0000019193", "PRZYKŁAD SPÓŁKA AKCYJNA"],
    );
    assert.deepEqual([body.vatId, body.regon], ["7740001454", "61018820000000"]);
    assert.match(body.licence.attribution ?? "", /Krajowy Rejestr Sądowy/);
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE/);
    assert.match(body.source, /OdpisPelny\/0000019193/);
  });

  it("a name no entity in the index has: 402, then 404 not_found, not charged", async () => {
    const url = `${service.url}/v1/gov/pl/companies?q=nieznana+firma`;
    assert.equal((await fetch(url)).status, 402);
    const buyer = await fundedBuyer(service);
    const none = await payingFetch(buyer)(url);
    assert.equal(none.status, 404);
    const body = (await none.json()) as Body;
    assert.deepEqual([body.error, body.charged, typeof body.indexSize], ["not_found", false, "number"]);
    assert.equal(await balanceOf(service, buyer.address), FUNDED);
  });

  it("a deleted company by KRS number, then found by name in the index it joined, with indexSize", async () => {
    const company = await buyAfterQueue(service, "/v1/gov/pl/companies?id=413516");
    assert.deepEqual(
      [company.id, company.status, company.active, company.dissolved],
      ["0000413516", "deleted", false, "2026-09-24"],
    );
    const buyer = await fundedBuyer(service);
    const found = await payingFetch(buyer)(`${service.url}/v1/gov/pl/companies?q=przykład+likwidacji`);
    assert.equal(found.status, 200);
    const search = Answer.parse(await found.json());
    assert.deepEqual(
      search.items?.map((i) => i.id),
      ["0000413516"],
    );
    assert.equal(typeof (search as Body).indexSize, "number");
    const status = (await (await fetch(`${service.url}/v1/gov/pl/companies/status`)).json()) as Body;
    assert.equal(typeof status.indexSize, "number");
    assert.ok((status.indexSize as number) >= 1);
    // The lookup above ran: no fetch of any register is left waiting in the fetch lane.
    assert.deepEqual(status.fetchLane, { due: 0, running: 0, oldestDueAgeSec: null });
  });

  it("the KRS maintenance page is never served as data: still not cached, nothing charged", async () => {
    const buyer = await fundedBuyer(service);
    const url = `${service.url}/v1/gov/pl/companies?id=0000777777`;
    assert.equal((await payingFetch(buyer)(url)).status, 404);
    await service.worker.drain();
    const again = await payingFetch(buyer)(url);
    assert.equal(again.status, 404);
    assert.equal(((await again.json()) as Body).error, "not_cached");
    assert.equal(await balanceOf(service, buyer.address), FUNDED);
  });

  it("refuses a malformed KRS number, or both or neither of q and id, before payment", async () => {
    await refusedBeforePayment(service, "/v1/gov/pl/companies?id=12a", "id");
    await refusedBeforePayment(service, "/v1/gov/pl/companies?id=00000191931", "id");
    await bareProbeGets402(service, "/v1/gov/pl/companies");
    await refusedBeforePayment(service, "/v1/gov/pl/companies?q=orlen&id=19193", "id");
  });
});

describe("GET /v1/gov/ch/companies", () => {
  it("the free sample answers offline with the Zefix source", async () => {
    const response = await fetch(`${service.url}/v1/gov/ch/companies?q=migros&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual([body.sku, body.count, body.totalCount], ["gov.ch.companies", 3, 3]);
    assert.equal(body.items?.[0]?.id, "CHE-105.829.940");
    assert.match(body.licence.name, /Must provide the source/);
  });

  it("a UID in any spelling: 402, 404 queued, then the company", async () => {
    const body = await buyAfterQueue(service, "/v1/gov/ch/companies?id=che105829940");
    assert.deepEqual(
      [body.uid, body.ehraid, body.active, body.activeNote],
      ["CHE-105.829.940", 119283, true, "Entered in the commercial register."],
    );
    assert.equal(typeof body.purpose, "string");
    assert.equal(body.zefixUri, "https://www.zefix.ch/en/search/entity/list/firm/119283");
  });

  it("too broad a name is a 400 on q after the search, not charged; a Zefix failure is 503", async () => {
    const buyer = await fundedBuyer(service);
    const broad = await payingFetch(buyer)(`${service.url}/v1/gov/ch/companies?q=bau`);
    assert.equal(broad.status, 400);
    assert.equal(((await broad.json()) as Body).parameter, "q");
    assert.equal((await payingFetch(buyer)(`${service.url}/v1/gov/ch/companies?q=panne`)).status, 503);
    assert.equal(await balanceOf(service, buyer.address), FUNDED);
  });

  it("refuses a UID with a wrong check digit and a name under 3 characters before payment", async () => {
    await refusedBeforePayment(service, "/v1/gov/ch/companies?id=CHE-105.829.941", "id");
    await refusedBeforePayment(service, "/v1/gov/ch/companies?id=CHE-1", "id");
    await refusedBeforePayment(service, "/v1/gov/ch/companies?q=ab*", "q");
  });
});

describe("live mode without the Zefix credentials", () => {
  let live: TestService;
  before(async () => {
    const env = { UPSTREAMS: "live" };
    live = await startTestService(env, [govCompaniesFamily(loadConfig(env))]);
  });
  after(() => live.stop());

  it("the Swiss route answers 503 not_configured before payment; Poland still asks for payment", async () => {
    const response = await fetch(`${live.url}/v1/gov/ch/companies?q=migros`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("payment-required"), null);
    const body = (await response.json()) as Body;
    assert.deepEqual([body.error, body.charged], ["not_configured", false]);
    assert.match(String(body.fix), /ZEFIX_USERNAME and ZEFIX_PASSWORD/);
    assert.equal((await fetch(`${live.url}/v1/gov/pl/companies?id=19193`)).status, 402);
    const status = (await (await fetch(`${live.url}/v1/gov/ch/companies/status`)).json()) as Body;
    assert.equal(status.configured, false);
  });
});
