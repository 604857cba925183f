// GET /v1/gov/ca/companies end to end over HTTP, paid through the local facilitator, on the recorded samples:
// the free sample answering offline on first ask, lookups by number (and its aliases) and by BN root, misses
// and malformed numbers refused before any payment, and the free status route.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { creditWallet } from "../../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../../x402/shared/networks.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { companyAnswer } from "../answers.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import { caCompanies } from "./index.ts";
import { CaExtrasShape } from "./normalise.ts";

const family = assembleGovFamily("gov-companies", [caCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS);
// Strict: nothing beyond the declared fields (and the replay notice the app adds).
const Answer = companyAnswer(CaExtrasShape).extend({ notice: z.string().optional() }).strict();
type Body = Record<string, unknown> & { error?: string; charged?: boolean; parameter?: string };
let service: TestService;

before(async () => {
  service = await startTestService({}, [family(loadConfig({ UPSTREAMS: "replay" }))]);
});
after(() => service.stop());

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}
const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

describe("GET /v1/gov/ca/companies", () => {
  it("the free sample answers offline on first ask: every spec field, the licence and the sample notice", async () => {
    const response = await fetch(`${service.url}/v1/gov/ca/companies?corporationId=1007&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual(
      [body.sku, body.found, body.id, body.corporationId, body.bn9, body.status, body.active],
      ["gov.ca.companies", true, "1007", "1007", "118810426", "Active", true],
    );
    assert.deepEqual(
      body.names?.map((n) => [n.current, n.expiryDate]),
      [
        [true, null],
        [false, "1991-12-27"],
        [false, "1981-11-10"],
      ],
    );
    assert.equal(body.registeredOffice?.province, "BC");
    assert.equal(body.source, "https://ised-isde.canada.ca/cc/lgcy/download/OPEN_DATA_SPLIT.zip");
    assert.equal(body.sourceUrl, "https://ised-isde.canada.ca/cc/lgcy/fdrlCrpDtls.html?corpId=1007");
    assert.equal(body.licence.name, "Open Government Licence – Canada 2.0");
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);
  });

  it("a number (aliases number and id, hyphen and zeros) or a BN root: 402, then the corporation, charged", async () => {
    const url = `${service.url}/v1/gov/ca/companies?number=0003401766`;
    assert.equal((await fetch(url)).status, 402);
    const buyer = await fundedBuyer();
    const before = await balance(buyer.address);
    const dissolved = await payingFetch(buyer)(url);
    assert.equal(dissolved.status, 200);
    const body = Answer.parse(await dissolved.json());
    assert.deepEqual(
      [body.id, body.status, body.active, body.statusDate],
      ["3401766", "Dissolved", false, "2014-07-28"],
    );
    assert.equal(await balance(buyer.address), before - 5000n);
    const byBn = Answer.parse(
      await (await payingFetch(buyer)(`${service.url}/v1/gov/ca/companies?bn9=765432108`)).json(),
    );
    assert.deepEqual(
      [byBn.corporationId, byBn.statusDetail],
      ["12345678", "Active - Dissolution Pending (Non-compliance)"],
    );
    const byId = await payingFetch(buyer)(`${service.url}/v1/gov/ca/companies?id=4512345`);
    assert.equal(Answer.parse(await byId.json()).statusDetail, "Inactive - Amalgamated");
    assert.equal(await balance(buyer.address), before - 15000n);
  });

  it("a number or BN not in the open data: 404 not_found before any payment, never charged", async () => {
    for (const query of ["corporationId=999", "bn9=123456789"]) {
      const response = await fetch(`${service.url}/v1/gov/ca/companies?${query}`);
      assert.equal(response.status, 404, query);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as Body;
      assert.deepEqual([body.error, body.charged], ["not_found", false]);
      assert.match(String(body.message), /not in Corporations Canada's open data/);
    }
  });

  it("refuses malformed or missing numbers before payment, naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["corporationId=123456789", "corporationId"],
      ["number=12ab", "corporationId"],
      ["bn9=12345", "bn9"],
      ["corporationId=1007&bn9=118810426", "bn9"],
      ["q=abbotsford", "q"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/gov/ca/companies?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.headers.get("payment-required"), null);
      assert.equal(((await response.json()) as Body).parameter, parameter, query);
    }
  });

  it("the free status route gives the release, rows and age of the index", async () => {
    const body = (await (await fetch(`${service.url}/v1/gov/ca/companies/status`)).json()) as {
      index: { loaded: boolean; rows: number; release: string; ageDays: number; errors: number };
      mode: string;
    };
    assert.deepEqual(
      [body.mode, body.index.loaded, body.index.rows, body.index.errors],
      ["replay", true, 4, 0],
    );
    assert.match(body.index.release, /^sample-/);
    assert.equal(body.index.ageDays, 0);
  });
});
