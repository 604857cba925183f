// Zefix on recordings of its OpenAPI types: UIDs displayed formatted and checked, multilingual names, old
// names in order, nominal capital as a string, status and what it means, searches, and the not-configured route.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FamilyTestContext,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { govCompaniesFamily } from "../index.ts";
import { recordedJson } from "../recorded.test-helper.ts";
import { formatUid, parseSwissCompanyId } from "./identifiers.ts";
import { capital, normaliseZefixCompany, type ZefixFull } from "./normalise.ts";
import { lookupChCompany, searchChCompanies, zefixCredentials } from "./upstream.ts";

/** The credentials as the family reads them when it is built. */
const credentialsOf = (ctx: FamilyTestContext) => zefixCredentials(ctx.service.config.env);

describe("Swiss identifiers", () => {
  it("UIDs in any spelling with a valid check digit; EHRA-IDs as digits; the rest refused naming id", () => {
    for (const raw of ["CHE-105.829.940", "che105829940", "CHE 105 829 940 MWST"]) {
      assert.deepEqual(parseSwissCompanyId(raw), { id: "CHE105829940" }, raw);
    }
    assert.deepEqual(parseSwissCompanyId("119283"), { id: "119283" });
    assert.match((parseSwissCompanyId("CHE-105.829.941") as { error: string }).error, /check digit/);
    assert.match((parseSwissCompanyId("CHE-105.829") as { error: string }).error, /^id must be a UID/);
    assert.ok("error" in parseSwissCompanyId("0"));
    assert.equal(formatUid("CHE116523899"), "CHE-116.523.899");
  });
});

describe("Zefix records", () => {
  it("a cooperative: formatted UID, English legal form, translations as aliases, old names latest first", () => {
    const [full] = recordedJson<ZefixFull[]>("ch-zefix-uid-hit");
    const company = normaliseZefixCompany(full as ZefixFull);
    assert.deepEqual(
      [
        company.id,
        company.uid,
        company.ehraid,
        company.legalForm,
        company.legalFormCode,
        company.status,
        company.active,
      ],
      ["CHE-105.829.940", "CHE-105.829.940", 119283, "Cooperative", "0108", "ACTIVE", true],
    );
    assert.equal(company.address, "Limmatstrasse 152, 8005 Zürich");
    assert.deepEqual(company.aliases, [
      "Fédération des coopératives Migros-Exemple",
      "Federazione delle cooperative Migros-Esempio",
    ]);
    assert.deepEqual(company.formerNames, [
      "Migros-Genossenschafts-Beispielbund",
      "Genossenschaft Migros Beispiel",
    ]);
    assert.equal(company.shareCapital, null, "cooperatives have no nominal capital: absent keys are null");
    assert.equal(company.created, null, "Zefix gives no registration date");
    assert.equal(company.zefixUri, "https://www.zefix.ch/en/search/entity/list/firm/119283");
    assert.match(company.sourceUrl, /chregister\.ch/);
    assert.deepEqual(company.publications[0], {
      date: "2026-05-14",
      sogcId: 1006002002,
      mutations: ["aenderungdomizil", "aenderungorgane"],
    });
    assert.equal(JSON.stringify(company).includes("Ã"), false, "no notice text is served");
    assert.equal(JSON.stringify(company).includes("Revision AG"), false);
  });

  it("a deleted corporation: inactive, the deletion date, capital read from its string, c/o address", () => {
    const [full] = recordedJson<ZefixFull[]>("ch-zefix-uid-dissolved");
    const company = normaliseZefixCompany(full as ZefixFull);
    assert.deepEqual(
      [company.status, company.active, company.dissolved, company.activeNote],
      ["CANCELLED", false, "2025-02-05", "Deleted from the commercial register on 2025-02-05."],
    );
    assert.deepEqual(company.shareCapital, { value: 100000, currency: "CHF" });
    assert.equal(company.address, "c/o Beispiel Treuhand GmbH, Bahnhofplatz 1, 3011 Bern");
    assert.deepEqual(
      [capital("100'000.50"), capital("250000"), capital(null), capital("n/a")],
      [100000.5, 250000, null, null],
    );
  });
});

describe("Zefix adapter (replayed)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openFamilyContext(govCompaniesFamily);
  });
  after(() => ctx.close());

  it("by UID (an array) and by EHRA-ID (one object) alike; unknown is not found; errors reject", async () => {
    const byUid = await lookupChCompany(ctx, credentialsOf(ctx), "CHE105829940");
    const byEhraid = await lookupChCompany(ctx, credentialsOf(ctx), "119283");
    assert.ok(byUid.found && byEhraid.found);
    assert.equal(byUid.company.name, byEhraid.company.name);
    assert.deepEqual(await lookupChCompany(ctx, credentialsOf(ctx), "CHE123456788"), { found: false });
    await assert.rejects(
      lookupChCompany(ctx, credentialsOf(ctx), "CHE399999993"),
      /HTTP 500 INTERNAL_SERVER_ERROR/,
    );
  });

  it("a name search: every row, deleted ones inactive; no hits is an empty list; too broad is its own error", async () => {
    const { search } = await searchChCompanies(ctx, credentialsOf(ctx), "migros");
    assert.equal(search.totalCount, 3);
    assert.deepEqual(
      search.items.map((i) => [i.id, i.active, i.dissolved]),
      [
        ["CHE-105.829.940", true, null],
        ["CHE-109.774.806", true, null],
        ["CHE-123.456.788", false, "2019-03-27"],
      ],
    );
    assert.equal((await searchChCompanies(ctx, credentialsOf(ctx), "zzqqxx")).search.items.length, 0);
    const broad = await searchChCompanies(ctx, credentialsOf(ctx), "bau");
    assert.deepEqual([broad.search.items.length, broad.search.refused?.parameter], [0, "q"]);
    assert.match(broad.search.refused?.message ?? "", /RESULTLIST_TO_LARGE/);
  });
});

describe("Zefix adapter (loopback, live)", () => {
  it("sends the credentials as HTTP Basic on GET and POST; a refusal names no credential", async () => {
    const seen: Array<string | undefined> = [];
    const zefix = await startLoopbackUpstream(
      (url, request): { status: number; headers: Record<string, string>; body: string } => {
        seen.push(request.headers.authorization);
        if (url.pathname.endsWith("/company/search")) {
          return { status: 200, headers: { "content-type": "application/json" }, body: "[]" };
        }
        return { status: 401, headers: { "www-authenticate": 'Basic realm="ZefixPublicREST"' }, body: "" };
      },
    );
    const ctx = await openFamilyContext(govCompaniesFamily, {
      UPSTREAMS: "live",
      GOV_CH_ZEFIX_BASE_URL: zefix.baseUrl,
      ZEFIX_USERNAME: "paycall",
      ZEFIX_PASSWORD: "s3cret-pass",
    });
    try {
      assert.equal((await searchChCompanies(ctx, credentialsOf(ctx), "migros")).search.totalCount, 0);
      const refused = await lookupChCompany(ctx, credentialsOf(ctx), "119283").catch((error: Error) => error);
      assert.ok(refused instanceof Error);
      assert.match(refused.message, /HTTP 401 \(credentials refused\)/);
      assert.equal(refused.message.includes("s3cret"), false);
      const expected = `Basic ${Buffer.from("paycall:s3cret-pass").toString("base64")}`;
      assert.deepEqual(seen, [expected, expected]);
    } finally {
      await ctx.close();
      await zefix.close();
    }
  });
});
