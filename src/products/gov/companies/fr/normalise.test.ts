// The French normaliser on recordings of the API's documented shape: legal entities only, INSEE codes,
// ceased companies, absent-vs-null keys.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FamilyTestContext, openFamilyContext } from "../../../../../test/family-harness.ts";
import { govCompaniesFamily } from "../index.ts";
import { recordedJson } from "../recorded.test-helper.ts";
import { type FrResult, isLegalEntity, normaliseFrResult } from "./normalise.ts";

const results = (name: string) => recordedJson<{ results: FrResult[] }>(name).results;

describe("Recherche d'entreprises results", () => {
  it("a legal entity: INSEE legal-form code, status A → active, the head office's address, no persons", () => {
    const [hit] = results("fr-search-alan");
    const company = normaliseFrResult(hit as FrResult);
    assert.equal(company.id, "123456782");
    assert.equal(company.name, "EXEMPLE ASSURANCE");
    assert.equal(company.legalForm, "5710");
    assert.deepEqual([company.status, company.active], ["A", true]);
    assert.equal(company.address, "44 RUE EXEMPLE 75011 PARIS");
    assert.equal(company.created, "2016-02-23");
    assert.equal(company.headOfficeSiret, "12345678200019");
    assert.equal(company.sourceUrl, "https://annuaire-entreprises.data.gouv.fr/entreprise/123456782");
    assert.equal(JSON.stringify(company).includes("PLACEHOLDER"), false, "directors are never served");
  });

  it("sole traders are left out", () => {
    const kept = results("fr-search-alan").filter(isLegalEntity);
    assert.deepEqual(
      kept.map((r) => r.siren),
      ["123456782", "900000001"],
    );
  });

  it("a ceased company: inactive, its closing date; null and absent keys both become null", () => {
    const ceased = normaliseFrResult(results("fr-siren-ceased")[0] as FrResult);
    assert.deepEqual([ceased.status, ceased.active, ceased.closed], ["C", false, "2020-12-31"]);
    assert.equal(ceased.address, null, "adresse: null");
    assert.equal(ceased.category, null, "categorie_entreprise absent");
    assert.equal(ceased.headcountBand, null);
    assert.equal(ceased.openEstablishments, 0, "a zero stays a zero");
  });
});

describe("Recherche d'entreprises results (real bytes)", () => {
  it("a commune (catégorie 7210): a legal entity, its head office's address and SIRET, counts as given", () => {
    const [hit] = results("fr-search-mairie-coise");
    assert.equal(isLegalEntity(hit as FrResult), true);
    const company = normaliseFrResult(hit as FrResult);
    assert.deepEqual(
      [company.id, company.name, company.legalForm, company.status, company.active],
      ["216900621", "COMMUNE DE COISE", "7210", "A", true],
    );
    assert.equal(company.address, "HOTEL DE VILLE 69590 COISE");
    assert.equal(company.headOfficeSiret, "21690062100014");
    assert.deepEqual([company.activity, company.category, company.headcountBand], ["84.11Z", "PME", "02"]);
    assert.deepEqual(
      [company.created, company.closed, company.updated],
      ["1983-03-01", null, "2023-05-06T13:27:00"],
    );
    assert.deepEqual([company.establishments, company.openEstablishments], [5, 3]);
  });
});

describe("Recherche d'entreprises counts (replayed)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openFamilyContext(govCompaniesFamily);
  });
  after(() => ctx.close());

  const search = async (q: string) => {
    const route = ctx.family.products.find((p) => p.path === "/v1/gov/fr/companies");
    const parsed = route?.query?.safeParse({ q });
    assert.ok(parsed?.success);
    const outcome = await route?.handle({ query: parsed.data, body: undefined }, ctx);
    assert.equal(outcome?.status, 200);
    return outcome?.body as { totalCount: number | null; totalCountIsLowerBound?: boolean };
  };

  it("total_results of 10,000 (where the API stops counting) is served as a lower bound", async () => {
    const broad = await search("boulangerie");
    assert.deepEqual([broad.totalCount, broad.totalCountIsLowerBound], [10000, true]);
  });

  it("a total under 10,000 is exact: no lower-bound flag", async () => {
    const exact = await search("alan");
    assert.equal(exact.totalCount, 3);
    assert.equal("totalCountIsLowerBound" in exact, false);
  });
});
