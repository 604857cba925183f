// Company registers end to end over HTTP, paid through the local facilitator, on the recordings.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../../test/harness.ts";
import { isFree } from "../../../catalog/product.ts";
import { loadConfig } from "../../../config.ts";
import { creditWallet } from "../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../x402/shared/networks.ts";
import { GovIndexAnswer } from "../index/gov-index.ts";
import { govIndexFamily } from "../index/index.ts";
import { readGovFetch } from "../shared/fetch-health.ts";
import { accountsAnswer, companyAnswer } from "./answers.ts";
import { bareProbeGets402 } from "./buying.test-helper.ts";
import { govCompaniesFamily } from "./index.ts";
import { AccountsShape } from "./sk/ruz-normalise.ts";

let service: TestService;
const Answer = companyAnswer().passthrough();
type Body = Record<string, unknown> & { error?: string; charged?: boolean; retryAfterSec?: number };

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  const config = loadConfig({ UPSTREAMS: "replay", ...env });
  service = await startTestService(env, [
    govCompaniesFamily(config),
    govIndexFamily([govCompaniesFamily])(config),
  ]);
});
after(() => service.stop());

async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}
const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);
const START = 1_000_000n;

/** 402 unpaid, then 404 not cached and not charged, then the company once the queued job ran. */
async function buyAfterQueue(path: string, price = 5000n) {
  const url = `${service.url}${path}`;
  assert.equal((await fetch(url)).status, 402);
  const buyer = await fundedBuyer();
  const miss = await payingFetch(buyer)(url);
  assert.equal(miss.status, 404);
  const missBody = (await miss.json()) as Body;
  assert.deepEqual([missBody.error, missBody.charged, missBody.retryAfterSec], ["not_cached", false, 60]);
  assert.equal(await balance(buyer.address), START);
  await service.worker.drain();
  const hit = await payingFetch(buyer)(url);
  assert.equal(hit.status, 200);
  assert.equal(await balance(buyer.address), START - price);
  return (await hit.json()) as Body;
}

async function refusedBeforePayment(path: string, parameter: string) {
  const response = await fetch(`${service.url}${path}`);
  assert.equal(response.status, 400, path);
  assert.equal(response.headers.get("payment-required"), null);
  assert.equal(((await response.json()) as { parameter: string }).parameter, parameter, path);
}

async function notFoundAfterLookup(path: string) {
  const buyer = await fundedBuyer();
  const url = `${service.url}${path}`;
  assert.equal((await payingFetch(buyer)(url)).status, 404);
  await service.worker.drain();
  const gone = await payingFetch(buyer)(url);
  assert.equal(gone.status, 404);
  assert.equal(((await gone.json()) as Body).error, "not_found");
  assert.equal(await balance(buyer.address), START);
}

describe("GET /v1/gov/fr/companies", () => {
  it("the free sample answers offline: legal entities only, INSEE codes, the licence and the sample notice", async () => {
    const response = await fetch(`${service.url}/v1/gov/fr/companies?q=alan&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.equal(body.sku, "gov.fr.companies");
    assert.equal(body.family, "companies");
    assert.deepEqual([body.query, body.count, body.totalCount, body.match], ["alan", 2, 3, true]);
    assert.deepEqual(
      body.items?.map((i) => [i.id, i.legalForm, i.active]),
      [
        ["123456782", "5710", true],
        ["900000001", "5499", false],
      ],
    );
    assert.match(body.licence.name, /Licence Ouverte/);
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE, NOT LIVE DATA/);
    assert.match(body.source, /\/search\?q=alan/);
  });

  it("a SIREN: 402, then 404 not cached (not charged), then the company once fetched", async () => {
    const body = await buyAfterQueue("/v1/gov/fr/companies?id=123+456+782");
    const company = Answer.parse(body);
    assert.equal(company.found, true);
    assert.deepEqual(
      [company.id, company.name, company.legalForm],
      ["123456782", "EXEMPLE ASSURANCE", "5710"],
    );
    assert.equal(body.headOfficeSiret, "12345678200019");
    assert.equal(company.sourceUrl, "https://annuaire-entreprises.data.gouv.fr/entreprise/123456782");
  });

  it("a ceased company is served inactive with its closing date", async () => {
    const body = await buyAfterQueue("/v1/gov/fr/companies?id=900000001");
    assert.deepEqual([body.status, body.active, body.closed, body.address], ["C", false, "2020-12-31", null]);
  });

  it("an unknown SIREN and a sole trader's SIREN are 404 not_found after the lookup, never charged", async () => {
    await notFoundAfterLookup("/v1/gov/fr/companies?id=810000000");
    await notFoundAfterLookup("/v1/gov/fr/companies?id=840000004");
  });

  it("a search without hits is 200 match:false, charged; an upstream failure is 503, not charged", async () => {
    const buyer = await fundedBuyer();
    const none = await payingFetch(buyer)(`${service.url}/v1/gov/fr/companies?q=zzqqxxyy`);
    assert.equal(none.status, 200);
    const body = Answer.parse(await none.json());
    assert.deepEqual([body.match, body.count], [false, 0]);
    assert.match(body.message ?? "", /No company/);
    const broken = await payingFetch(buyer)(`${service.url}/v1/gov/fr/companies?q=panne`);
    assert.equal(broken.status, 503);
    assert.equal(((await broken.json()) as Body).charged, false);
    assert.equal(await balance(buyer.address), START - 5000n);
  });

  it("refuses a malformed SIREN before payment, naming id", async () => {
    await refusedBeforePayment("/v1/gov/fr/companies?id=123456789", "id");
    await refusedBeforePayment("/v1/gov/fr/companies?id=12345", "id");
    await bareProbeGets402(service, "/v1/gov/fr/companies");
    await refusedBeforePayment("/v1/gov/fr/companies?q=a&id=123456782", "id");
  });
});

describe("GET /v1/gov/cz/companies", () => {
  it("the free sample answers offline", async () => {
    const response = await fetch(`${service.url}/v1/gov/cz/companies?q=%C4%8Dez&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual([body.sku, body.count, body.totalCount, body.match], ["gov.cz.companies", 3, 46, true]);
    assert.equal(body.items?.[0]?.address, "Na Bydžově 3122, 39005 Tábor");
    assert.match(body.licence.attribution ?? "", /Ministerstvo financí/);
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE/);
  });

  it("an IČO: 402, 404 queued, then the subject with its public-register extract", async () => {
    const body = await buyAfterQueue("/v1/gov/cz/companies?id=27082440");
    const company = Answer.parse(body);
    assert.deepEqual([company.id, company.legalForm, company.active], ["27082440", "121", true]);
    const register = body.register as {
      fileNumber: string;
      shareCapital: { value: number; currency: string };
    };
    assert.equal(register.fileNumber, "B 8573");
    assert.deepEqual(register.shareCapital, { value: 2000000, currency: "CZK", since: "2017-05-23" });
    assert.equal(body.legalFormNote, "Akciová společnost");
    assert.equal(JSON.stringify(body).includes("PLACEHOLDER"), false);
  });

  it("a dissolved subject is served with its end date; an unknown IČO is 404 not_found, never charged", async () => {
    const body = await buyAfterQueue("/v1/gov/cz/companies?id=12345679");
    assert.deepEqual(
      [body.active, body.dissolved, body.register, body.vatId],
      [false, "2019-06-30", null, null],
    );
    await notFoundAfterLookup("/v1/gov/cz/companies?id=99999994");
  });

  it("no match is 200 match:false; an ARES failure is 503, not charged", async () => {
    const buyer = await fundedBuyer();
    const none = await payingFetch(buyer)(`${service.url}/v1/gov/cz/companies?q=zzqqxxyy`);
    assert.equal(none.status, 200);
    assert.equal(Answer.parse(await none.json()).match, false);
    const broken = await payingFetch(buyer)(`${service.url}/v1/gov/cz/companies?q=porucha`);
    assert.equal(broken.status, 503);
    assert.equal(await balance(buyer.address), START - 5000n);
  });

  it("a name matching over 1,000 subjects is 400 query_too_broad naming q, not charged, ARES not failing", async () => {
    const buyer = await fundedBuyer();
    const before = await readGovFetch(service.store, "gov.cz.companies");
    const broad = await payingFetch(buyer)(`${service.url}/v1/gov/cz/companies?q=s.r.o.`);
    assert.equal(broad.status, 400);
    const body = (await broad.json()) as Body & { parameter?: string; message?: string };
    assert.deepEqual([body.error, body.parameter, body.charged], ["query_too_broad", "q", false]);
    assert.match(body.message ?? "", /more than 1,000 subjects.*give more of the name/);
    assert.equal(await balance(buyer.address), START);
    const health = await readGovFetch(service.store, "gov.cz.companies");
    assert.equal(health.lastErrorAt, before.lastErrorAt, "a query too broad is not ARES failing");
    assert.ok(health.lastOkAt && health.lastOkAt !== before.lastOkAt, "ARES answered");
  });

  it("refuses an IČO with a wrong check digit or length before payment, naming id", async () => {
    await refusedBeforePayment("/v1/gov/cz/companies?id=27082441", "id");
    await refusedBeforePayment("/v1/gov/cz/companies?id=2708244", "id");
  });
});

describe("GET /v1/gov/gb/companies", () => {
  it("the free sample answers offline, with the OGL attribution", async () => {
    const response = await fetch(`${service.url}/v1/gov/gb/companies?q=tesco&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual([body.sku, body.count, body.totalCount], ["gov.gb.companies", 3, 3]);
    assert.equal(body.items?.[2]?.active, false);
    assert.equal(body.licence.name, "Open Government Licence v3.0");
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE.*Crown copyright/);
  });

  it("a company number (alias number, zero-padded): 402, 404 queued, then the profile", async () => {
    const body = await buyAfterQueue("/v1/gov/gb/companies?number=445790");
    const company = Answer.parse(body);
    assert.deepEqual([company.id, company.name, company.status], ["00445790", "TESCO PLC", "active"]);
    assert.deepEqual(body.accounts, { nextDue: "2026-08-26", lastMadeUpTo: "2025-02-26", overdue: false });
    assert.deepEqual(body.links, {
      self: "/company/00445790",
      filing_history: "/company/00445790/filing-history",
      officers: "/company/00445790/officers",
    });
    const same = await payingFetch(await fundedBuyer())(
      `${service.url}/v1/gov/gb/companies?companyNumber=00445790`,
    );
    assert.equal(same.status, 200, "both spellings share one cache entry");
  });

  it("a dissolved company, and an unknown number (404 not_found, never charged)", async () => {
    const body = await buyAfterQueue("/v1/gov/gb/companies?companyNumber=sc123456");
    assert.deepEqual([body.active, body.dateOfCessation, body.hasCharges], [false, "2015-06-30", null]);
    await notFoundAfterLookup("/v1/gov/gb/companies?companyNumber=09999999");
  });

  it("no match is 200 match:false; a failing API is 503, not charged", async () => {
    const buyer = await fundedBuyer();
    const none = await payingFetch(buyer)(`${service.url}/v1/gov/gb/companies?q=zzqqxxyy`);
    assert.equal(Answer.parse(await none.json()).match, false);
    const broken = await payingFetch(buyer)(`${service.url}/v1/gov/gb/companies?q=outage`);
    assert.equal(broken.status, 503);
    assert.equal(await balance(buyer.address), START - 5000n);
  });

  it("refuses bad input before payment, naming the parameter", async () => {
    await refusedBeforePayment("/v1/gov/gb/companies?companyNumber=ABC12345", "companyNumber");
    await refusedBeforePayment("/v1/gov/gb/companies?number=123456789", "companyNumber");
    await refusedBeforePayment("/v1/gov/gb/companies?q=tesco&number=1", "companyNumber");
    await refusedBeforePayment("/v1/gov/gb/companies?id=00445790", "id");
  });

  it("coverage and status are free and say what is cached and how the key stands", async () => {
    const coverage = (await (await fetch(`${service.url}/v1/gov/gb/companies/coverage`)).json()) as Body;
    assert.equal(coverage.ok, true);
    assert.ok((coverage.companies as number) >= 3, "the companies fetched above");
    const status = (await (await fetch(`${service.url}/v1/gov/gb/companies/status`)).json()) as Body;
    assert.deepEqual([status.configured, status.mode], [false, "replay"]);
    assert.deepEqual(status.rateLimit, {
      requestsPerWindow: 600,
      windowSec: 300,
      minIntervalMs: 500,
      budget: "companies-house",
    });
    assert.equal(typeof status.lastOkAt, "string");
  });
});

describe("live mode without the Companies House key", () => {
  let live: TestService;
  before(async () => {
    const env = { UPSTREAMS: "live" };
    live = await startTestService(env, [govCompaniesFamily(loadConfig(env))]);
  });
  after(() => live.stop());

  it("the UK route answers 503 not_configured before payment; the other countries still ask for payment", async () => {
    const response = await fetch(`${live.url}/v1/gov/gb/companies?q=tesco`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("payment-required"), null);
    const body = (await response.json()) as Body;
    assert.deepEqual([body.error, body.charged], ["not_configured", false]);
    assert.match(String(body.fix), /COMPANIES_HOUSE_API_KEY/);
    assert.equal((await fetch(`${live.url}/v1/gov/fr/companies?q=alan`)).status, 402);
    const status = (await (await fetch(`${live.url}/v1/gov/gb/companies/status`)).json()) as Body;
    assert.equal(status.configured, false);
  });
});

describe("GET /v1/gov/sk/companies", () => {
  it("the free sample answers offline, repaired text, CC BY 4.0", async () => {
    const response = await fetch(`${service.url}/v1/gov/sk/companies?q=websupport&sample=1`);
    assert.equal(response.status, 200);
    const body = Answer.parse(await response.json());
    assert.deepEqual([body.sku, body.count, body.totalCount], ["gov.sk.companies", 2, 2]);
    assert.match(String(body.items?.[0]?.address), /^Karadžičova 7608\/12/);
    assert.deepEqual([body.items?.[1]?.active, body.items?.[1]?.status], [false, "terminated"]);
    assert.match(body.licence.name, /CC BY 4\.0/);
  });

  it("an IČO: 402, 404 queued, then the entity with its history", async () => {
    const body = await buyAfterQueue("/v1/gov/sk/companies?id=36421928");
    assert.deepEqual(body.formerNames, [
      { name: "WebSupport, s.r.o.", from: "2004-08-12", to: "2021-10-05" },
    ]);
    assert.deepEqual(body.shareCapital, { value: 6639, currency: "EUR", since: "2009-01-01" });
    assert.equal(JSON.stringify(body).includes("PLACEHOLDER"), false);
  });

  it("a terminated entity; an unknown IČO is 404 not_found, never charged", async () => {
    const body = await buyAfterQueue("/v1/gov/sk/companies?id=99000008");
    assert.deepEqual([body.active, body.dissolved], [false, "2020-05-31"]);
    await notFoundAfterLookup("/v1/gov/sk/companies?id=12345679");
  });

  it("no match is 200 match:false; RPO failing is 503, not charged; bad IČO is 400", async () => {
    const buyer = await fundedBuyer();
    const none = await payingFetch(buyer)(`${service.url}/v1/gov/sk/companies?q=zzqqxxyy`);
    assert.equal(Answer.parse(await none.json()).match, false);
    assert.equal((await payingFetch(buyer)(`${service.url}/v1/gov/sk/companies?q=chyba`)).status, 503);
    assert.equal(await balance(buyer.address), START - 5000n);
    await refusedBeforePayment("/v1/gov/sk/companies?id=12345", "id");
    await refusedBeforePayment("/v1/gov/sk/companies?id=123456789", "id");
  });
});

describe("GET /v1/gov/sk/accounts", () => {
  const Accounts = accountsAnswer(AccountsShape);

  it("the free sample answers offline on first ask: statements, mapped figures, documents", async () => {
    const response = await fetch(`${service.url}/v1/gov/sk/accounts?id=46792511&sample=1`);
    assert.equal(response.status, 200);
    const body = Accounts.parse(await response.json());
    assert.deepEqual([body.sku, body.family, body.statementCount], ["gov.sk.accounts", "accounts", 3]);
    assert.equal(body.latestFigures?.keyFigures.totalAssets?.current, 130000);
    assert.equal(body.latestFigures?.tables.length, 3);
    assert.equal(body.documents.length, 4);
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE/);
  });

  it("402 at 0.01 USD, then 404 queued (not charged), then the accounts for 10000 units", async () => {
    const url = `${service.url}/v1/gov/sk/accounts?id=99000008`;
    const challenge = await fetch(url);
    assert.equal(challenge.status, 402);
    const required = JSON.parse(
      Buffer.from(challenge.headers.get("payment-required") ?? "", "base64").toString("utf8"),
    ) as {
      accepts: Array<{ amount: string }>;
    };
    assert.equal(required.accepts[0]?.amount, "10000");
    const body = await buyAfterQueue("/v1/gov/sk/accounts?id=99000008", 10000n);
    assert.deepEqual([body.latestFigures, body.dissolved], [null, "2020-05-31"]);
    assert.match(String(body.latestFiguresNote), /documents only/);
  });

  it("an unknown IČO is 404 not_found, never charged; id is required and checked before payment", async () => {
    await notFoundAfterLookup("/v1/gov/sk/accounts?id=12345679");
    await bareProbeGets402(service, "/v1/gov/sk/accounts");
    await refusedBeforePayment("/v1/gov/sk/accounts?id=12a45678", "id");
    await refusedBeforePayment("/v1/gov/sk/accounts?q=freevision", "q");
  });
});

describe("every company route", () => {
  it("has a free sample that answers offline, and GET /v1/gov lists the routes", async () => {
    const products = govCompaniesFamily(loadConfig({ UPSTREAMS: "replay" })).products;
    const paid = products.filter((p) => !isFree(p));
    const sampled = paid.filter((p) => p.sample);
    assert.deepEqual(
      sampled.map((p) => p.path),
      paid.map((p) => p.path),
      "every paid company route has a free sample",
    );
    assert.ok(paid.length >= 9, `${paid.length} paid company routes`);
    for (const product of sampled) {
      const query = new URLSearchParams({ ...product.sample, sample: "1" });
      const response = await fetch(`${service.url}${product.path}?${query}`);
      assert.equal(response.status, 200, product.path);
    }
    const index = GovIndexAnswer.parse(await (await fetch(`${service.url}/v1/gov`)).json());
    for (const path of paid.map((p) => p.path)) {
      const route = index.routes.find((r) => r.path === path);
      assert.ok(route, path);
      assert.equal(route.state, "live", path);
    }
  });
});
