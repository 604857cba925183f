// ARES records: real captured responses (a name search, a VAT group member, a query too broad) and, where no
// public capture exists, recordings of the documented shapes (the public-register extract's history arrays,
// `;` decimal money, several PravniForma lists); and the adapter against the replayed API.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FamilyTestContext, openFamilyContext } from "../../../../../test/family-harness.ts";
import { govCompaniesFamily } from "../index.ts";
import { recordedJson } from "../recorded.test-helper.ts";
import {
  type AresSubject,
  decimalCommaAmount,
  isInPublicRegister,
  normaliseAresItem,
  normaliseVr,
  type VrExtract,
} from "./normalise.ts";
import { legalFormNames, lookupCzCompany, searchCzCompanies } from "./upstream.ts";

describe("ARES records", () => {
  it("the public-register extract: current file number and capital, names with validity windows", () => {
    const register = normaliseVr(recordedJson<VrExtract>("cz-vr-hit"), "27082440");
    assert.ok(register);
    assert.equal(register.court, "Městský soud v Praze");
    assert.equal(register.fileNumber, "B 8573");
    assert.equal(register.registeredOn, "2003-08-26");
    assert.equal(register.state, "AKTIVNI");
    assert.deepEqual(register.names, [
      { name: "Alza.cz a.s.", from: "2006-04-01", to: null },
      { name: "Alza.cz s.r.o.", from: "2003-08-26", to: "2006-03-31" },
    ]);
    assert.deepEqual(register.shareCapital, { value: 2000000, currency: "CZK", since: "2017-05-23" });
    assert.deepEqual(register.businessScope, [
      "Výroba, obchod a služby neuvedené v přílohách 1 až 3 živnostenského zákona",
    ]);
    assert.equal(register.branchCount, 1, "the ended branch is not counted");
    assert.equal(
      JSON.stringify(register).includes("PLACEHOLDER"),
      false,
      "statutory bodies are never served",
    );
  });

  it("decimal-comma and semicolon money", () => {
    assert.equal(decimalCommaAmount("2000000;00"), 2000000);
    assert.equal(decimalCommaAmount("2 000 000,50"), 2000000.5);
    assert.equal(decimalCommaAmount("100"), 100);
    assert.equal(decimalCommaAmount("n/a"), null);
  });

  it("a dissolved subject: inactive, its end date; absent dic and czNace become null and []", () => {
    const item = normaliseAresItem(recordedJson<AresSubject>("cz-subject-dissolved"));
    assert.deepEqual([item.status, item.active, item.dissolved], ["ZANIKLY", false, "2019-06-30"]);
    assert.equal(item.vatId, null);
    assert.equal(item.address, "Poruba 1, 70800 Ostrava", "composed when textovaAdresa is absent");
  });
});

describe("ARES records (real bytes)", () => {
  it("a VAT group member (Komerční banka) has no dic: vatId is the group's dicSkDph", () => {
    const subject = recordedJson<AresSubject>("cz-subject-group-vat");
    assert.equal(subject.dic, undefined, "the capture has no dic");
    const item = normaliseAresItem(subject);
    assert.deepEqual([item.id, item.name, item.vatId], ["45317054", "Komerční banka, a.s.", "CZ699001182"]);
    assert.deepEqual([item.status, item.active], ["AKTIVNI", true], "state in the primary source (ros)");
  });

  it("the subject's own dic wins over a group number; every search hit keeps its own", () => {
    const page = recordedJson<{ ekonomickeSubjekty: AresSubject[] }>("cz-search-cez");
    assert.deepEqual(
      page.ekonomickeSubjekty.map((s) => normaliseAresItem(s).vatId),
      ["CZ14504219", "CZ24729035", "CZ28255933"],
    );
  });

  it("in the public register only when stavZdrojeVr names a state other than NEEXISTUJICI", () => {
    const [club] = recordedJson<{ ekonomickeSubjekty: AresSubject[] }>("cz-search-cez").ekonomickeSubjekty;
    assert.ok(club);
    assert.equal(isInPublicRegister(club), true);
    // The same real record as ARES lists a register the subject was never entered in (its RZP state).
    const never = { ...club, seznamRegistraci: { ...club.seznamRegistraci, stavZdrojeVr: "NEEXISTUJICI" } };
    assert.equal(isInPublicRegister(never), false);
    assert.equal(isInPublicRegister(recordedJson<AresSubject>("cz-subject-dissolved")), false, "key absent");
  });
});

describe("ARES adapter (replayed)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openFamilyContext(govCompaniesFamily);
  });
  after(() => ctx.close());

  it("one subject with its register extract and legal-form name", async () => {
    const found = await lookupCzCompany(ctx, "27082440");
    assert.equal(found.found, true);
    if (!found.found) return;
    assert.deepEqual([found.company.legalForm, found.company.legalFormNote], ["121", "Akciová společnost"]);
    assert.deepEqual(found.company.activity, ["47910", "46900"]);
    assert.equal(found.company.vatId, "CZ27082440");
    assert.equal(found.company.register?.fileNumber, "B 8573");
    assert.equal(found.recordedSample, true);
  });

  it("a subject only in RES has no register extract (no VR request); an unknown IČO is not found", async () => {
    const dissolved = await lookupCzCompany(ctx, "12345679");
    assert.equal(dissolved.found && dissolved.company.register, null);
    assert.deepEqual(await lookupCzCompany(ctx, "99999994"), { found: false });
  });

  it("an ARES failure is an error, never a 'not found'", async () => {
    await assert.rejects(lookupCzCompany(ctx, "87654326"), /HTTP 500/);
    await assert.rejects(searchCzCompanies(ctx, "porucha"), /HTTP 500/);
  });

  it("a name search through the POST endpoint: ARES's total, each hit's state in its primary source", async () => {
    const { search } = await searchCzCompanies(ctx, "čez");
    assert.equal(search.totalCount, 46);
    assert.deepEqual(
      search.items.map((i) => [i.id, i.legalForm, i.status, i.created]),
      [
        ["14504219", "706", "AKTIVNI", "1991-01-18"],
        ["24729035", "121", "AKTIVNI", "2010-10-01"],
        ["28255933", "112", "AKTIVNI", "2008-03-07"],
      ],
    );
  });

  it("a name matching over 1,000 subjects is refused as the buyer's to narrow, not thrown as a failure", async () => {
    const { search } = await searchCzCompanies(ctx, "s.r.o.");
    assert.deepEqual(search.items, []);
    assert.equal(search.refused?.parameter, "q");
    assert.match(search.refused?.message ?? "", /more than 1,000 subjects/);
  });

  it("every PravniForma list is read; the first name given for a code wins", async () => {
    const names = await legalFormNames(ctx);
    assert.equal(names["706"], "Spolek", "a code only the second list has");
    assert.equal(names["121"], "Akciová společnost", "not the second list's name");
    assert.equal(names["112"], "Společnost s ručením omezeným");
  });
});

describe("ARES adapter (live, loopback)", () => {
  it("searches by POST with a JSON body, our User-Agent and the base-URL override", async () => {
    const { startLoopbackUpstream } = await import("../../../../../test/family-harness.ts");
    const seen: Array<{ method?: string; path: string; body: string; ua?: string }> = [];
    const upstream = await startLoopbackUpstream((url, request, body) => {
      seen.push({ method: request.method, path: url.pathname, body, ua: request.headers["user-agent"] });
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          pocetCelkem: 2,
          // A hit with only an icoId (no IČO) cannot be looked up by id here: it is left out.
          ekonomickeSubjekty: [
            { ico: "27082440", obchodniJmeno: "Živá a.s." },
            { icoId: "ARES_00369838", obchodniJmeno: "Bez IČO" },
          ],
        }),
      };
    });
    const ctx = await openFamilyContext(govCompaniesFamily, {
      UPSTREAMS: "live",
      GOV_CZ_ARES_BASE_URL: `${upstream.baseUrl}/rest`,
    });
    try {
      const { search, recordedSample } = await searchCzCompanies(ctx, "živá");
      assert.equal(recordedSample, false);
      assert.deepEqual(
        search.items.map((i) => i.name),
        ["Živá a.s."],
      );
      assert.equal(seen[0]?.method, "POST");
      assert.equal(seen[0]?.path, "/rest/ekonomicke-subjekty/vyhledat");
      assert.deepEqual(JSON.parse(seen[0]?.body ?? "{}"), { obchodniJmeno: "živá", start: 0, pocet: 10 });
      assert.match(seen[0]?.ua ?? "", /^paycall\//);
    } finally {
      await ctx.close();
      await upstream.close();
    }
  });

  it("asks the public-register extract only for a subject in it (never for stavZdrojeVr NEEXISTUJICI)", async () => {
    const { startLoopbackUpstream } = await import("../../../../../test/family-harness.ts");
    const kb = recordedJson<AresSubject>("cz-subject-group-vat");
    // The real Komerční banka record, once as captured (in VR) and once as ARES lists a subject never entered there.
    const never = {
      ...kb,
      ico: "00000019",
      seznamRegistraci: { ...kb.seznamRegistraci, stavZdrojeVr: "NEEXISTUJICI" },
    };
    const paths: string[] = [];
    const upstream = await startLoopbackUpstream((url) => {
      paths.push(url.pathname);
      const json = (status: number, body: unknown) => ({
        status,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (url.pathname.endsWith("/ciselniky-nazevniky/vyhledat")) return json(200, { ciselniky: [] });
      if (url.pathname.endsWith("/ekonomicke-subjekty/45317054")) return json(200, kb);
      if (url.pathname.endsWith("/ekonomicke-subjekty/00000019")) return json(200, never);
      return json(404, { kod: "NENALEZENO" });
    });
    const ctx = await openFamilyContext(govCompaniesFamily, {
      UPSTREAMS: "live",
      GOV_CZ_ARES_BASE_URL: upstream.baseUrl,
    });
    try {
      const notIn = await lookupCzCompany(ctx, "00000019");
      assert.equal(notIn.found && notIn.company.register, null);
      assert.equal(paths.filter((p) => p.includes("-vr/")).length, 0, "no extract asked");
      const inVr = await lookupCzCompany(ctx, "45317054");
      assert.equal(inVr.found && inVr.company.vatId, "CZ699001182");
      assert.deepEqual(
        paths.filter((p) => p.includes("-vr/")),
        ["/ekonomicke-subjekty-vr/45317054"],
      );
    } finally {
      await ctx.close();
      await upstream.close();
    }
  });
});
