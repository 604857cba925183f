// Brazil end to end over HTTP, paid through the local facilitator, offline: with UPSTREAMS=replay the index is
// built on first use from the recorded share listing and the fixture zips of release 2026-11.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { creditWallet } from "../../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../../x402/shared/networks.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { bareProbeGets402 } from "../buying.test-helper.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import { BrCompaniesAnswer, brCompanies } from "./index.ts";

let service: TestService;
type Body = Record<string, unknown> & {
  error?: string;
  charged?: boolean;
  parameter?: string;
  items?: Array<Record<string, unknown>>;
};

before(async () => {
  const env = { WORKER_POLL_MS: "20" };
  const family = assembleGovFamily("gov-companies", [brCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS);
  service = await startTestService(env, [family(loadConfig({ UPSTREAMS: "replay", ...env }))]);
});
after(() => service.stop());

const START = 1_000_000n;
const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

async function buy(path: string) {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const response = await payingFetch(buyer)(`${service.url}${path}`);
  return {
    status: response.status,
    body: (await response.json()) as Body,
    paid: START - (await balance(buyer.address)),
  };
}

describe("GET /v1/gov/br/companies", () => {
  it("answers the free sample offline from the recorded release, marked as a sample", async () => {
    const response = await fetch(`${service.url}/v1/gov/br/companies?q=banco+do+brasil&sample=1`);
    assert.equal(response.status, 200);
    const body = BrCompaniesAnswer.parse(await response.json());
    assert.equal(body.sku, "gov.br.companies");
    assert.deepEqual(
      body.items?.map((i) => [i.id, i.headOffice, i.city]),
      [
        ["00000000000191", true, "BRASILIA"],
        ["00000000176206", false, "SAO PAULO"],
      ],
    );
    assert.match(body.licence.notice ?? "", /RECORDED SAMPLE/);
    assert.match(body.source, /YggdBLfdninEJX9\?path=%2F2026-11$/);
  });

  it("sells one establishment by CNPJ with punctuation: the company's facts joined to the establishment's", async () => {
    const { status, body, paid } = await buy("/v1/gov/br/companies?id=19.131.243/0001-97");
    assert.equal(status, 200);
    assert.equal(paid, 5000n);
    const company = BrCompaniesAnswer.parse(body);
    assert.deepEqual(
      [company.id, company.name, company.tradeName, company.legalForm, company.status, company.active],
      [
        "19131243000197",
        "OPEN KNOWLEDGE BRASIL",
        "REDE PELO CONHECIMENTO LIVRE",
        "3999 Associação Privada",
        "ATIVA",
        true,
      ],
    );
    assert.equal(company.address, "AVENIDA PAULISTA, 37, ANDAR 4, BELA VISTA, 01311-902, SAO PAULO - SP");
    assert.deepEqual(company.activity, {
      code: "9430800",
      name: "Atividades de associações de defesa de direitos sociais",
      secondary: ["6204000"],
    });
    assert.deepEqual(company.contact, { phones: ["(11) 2385-1939"], email: "contato@ok.org.br", note: null });
    assert.deepEqual(
      [company.created, company.release, company.mei, company.soleTrader],
      ["2013-10-03", "2026-11", false, false],
    );
    assert.equal(
      company.source,
      "https://arquivos.receitafederal.gov.br/index.php/s/YggdBLfdninEJX9/download?path=%2F2026-11&files=Estabelecimentos0.zip",
    );
  });

  it("answers a root with the head office, and keeps a sole trader's CPF, street and contact out (LGPD)", async () => {
    const { status, body } = await buy("/v1/gov/br/companies?id=45997418");
    assert.equal(status, 200);
    const trader = BrCompaniesAnswer.parse(body);
    assert.deepEqual(
      [trader.id, trader.name, trader.soleTrader, trader.mei],
      ["45997418000153", "MARIA EXEMPLO DA SILVA", true, true],
    );
    assert.equal(trader.address, "CAMPINAS - SP");
    assert.deepEqual(trader.contact?.phones, []);
    assert.equal(trader.contact?.email, null);
    const text = JSON.stringify(body);
    for (const hidden of ["12345678909", "FLORES", "99999", "maria.exemplo"])
      assert.ok(!text.includes(hidden), hidden);
  });

  it("finds trade name plus town, Latin-1 names with accents folded, and closed establishments with their reason", async () => {
    const { status, body } = await buy("/v1/gov/br/companies?q=pao+dourado+rio");
    assert.equal(status, 200);
    const [bakery] = body.items ?? [];
    assert.deepEqual(
      [
        bakery?.id,
        bakery?.tradeName,
        bakery?.status,
        bakery?.active,
        bakery?.statusReason,
        bakery?.statusDate,
      ],
      [
        "11222333000181",
        "PÃO DOURADO",
        "BAIXADA",
        false,
        "EXTINÇÃO POR ENCERRAMENTO LIQUIDAÇÃO VOLUNTÁRIA",
        "2020-12-31",
      ],
    );
  });

  it("a CNPJ not in the release is 404 not_found and not charged; a search without hits is a charged match:false", async () => {
    const missing = await buy("/v1/gov/br/companies?id=33444555000181");
    assert.deepEqual(
      [missing.status, missing.body.error, missing.body.charged, missing.paid],
      [404, "not_found", false, 0n],
    );
    const none = await buy("/v1/gov/br/companies?q=inexistente");
    assert.deepEqual([none.status, none.body.match, none.body.count, none.paid], [200, false, 0, 5000n]);
  });

  it("refuses a bad CNPJ, both parameters or neither with a 400 naming the parameter, before payment", async () => {
    for (const [query, parameter] of [
      ["id=19131243000198", "id"],
      ["id=1913124", "id"],
      ["q=banco&id=19131243", "id"],
    ] as const) {
      const response = await fetch(`${service.url}/v1/gov/br/companies?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.headers.get("payment-required"), null);
      assert.equal(((await response.json()) as Body).parameter, parameter, query);
    }
    await bareProbeGets402(service, "/v1/gov/br/companies");
  });
});
