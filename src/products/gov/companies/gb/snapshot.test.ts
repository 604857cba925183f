// The UK monthly snapshot name index: CSV rows read (trimmed headers, DD/MM/YYYY dates, earlier names
// searchable), malformed rows reported with file and line, the warmer importing only a new snapshot, and name
// searches answered from the index without a Companies House call once it is loaded.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openFamilyContext } from "../../../../../test/family-harness.ts";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../../../test/harness.ts";
import { loadConfig } from "../../../../config.ts";
import { creditWallet } from "../../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../../x402/shared/networks.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { startBytesServer, zipOf } from "../../shared/zip-fixture.test-helper.ts";
import { companyAnswer } from "../answers.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import { gbCompanies } from "./index.ts";
import { GbItemExtrasShape } from "./normalise.ts";
import { latestSnapshot, SNAPSHOT_SAMPLE_DIR, searchSnapshot, snapshotDate } from "./snapshot.ts";
import { GB_SNAPSHOT_WARMER, importSnapshot } from "./snapshot-warmer.ts";

const family = assembleGovFamily("gov-companies", [gbCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS);
const Answer = companyAnswer({}, GbItemExtrasShape).passthrough();
const MALFORMED_DIR = path.join(SNAPSHOT_SAMPLE_DIR, "..", "malformed");

describe("the snapshot's download page and rows", () => {
  it("finds the newest one-file snapshot linked; reads DD/MM/YYYY dates", () => {
    const page =
      '<a href="BasicCompanyDataAsOneFile-2026-10-01.zip">old</a><a href="BasicCompanyDataAsOneFile-2026-11-01.zip">' +
      'new</a><a href="BasicCompanyData-2026-11-01-part1_7.zip">part</a>';
    assert.deepEqual(latestSnapshot(page), {
      date: "2026-11-01",
      fileName: "BasicCompanyDataAsOneFile-2026-11-01.zip",
    });
    assert.equal(latestSnapshot("<html>maintenance</html>"), undefined);
    assert.deepEqual(["27/11/1947", "1947-11-27", ""].map(snapshotDate), ["1947-11-27", null, null]);
  });
});

describe("the snapshot index (replay)", () => {
  it("imports the recorded snapshot; searches current and earlier names, shortest first", async () => {
    const ctx = await openFamilyContext(family);
    try {
      assert.equal(await searchSnapshot(ctx, "tesco"), undefined, "no index yet: the API is asked");
      const status = await importSnapshot(ctx);
      assert.deepEqual([status.rows, status.errors], [5, 0]);
      assert.match(status.release, /^2026-11-01\+sample-/);
      const tesco = await searchSnapshot(ctx, "tesco");
      assert.deepEqual(
        tesco?.search.items.map((i) => [i.id, i.status, i.active]),
        [
          ["00445790", "Active", true],
          ["00519500", "Active", true],
          ["SC612345", "Active - Proposal to Strike off", true],
        ],
      );
      const plc = tesco?.search.items[0];
      assert.deepEqual(plc?.address, {
        line1: "Tesco House, Shire Park",
        line2: "Kestrel Way",
        locality: "WELWYN GARDEN CITY",
        region: null,
        postalCode: "AL7 1GA",
        country: "UNITED KINGDOM",
      });
      assert.deepEqual(
        [plc?.created, plc?.type, plc?.snapshot],
        ["1947-11-27", "Public Limited Company", "2026-11-01"],
      );
      assert.equal(
        tesco?.search.source,
        "https://download.companieshouse.gov.uk/BasicCompanyDataAsOneFile-2026-11-01.zip",
      );
      assert.equal(tesco?.recordedSample, true);
      const former = await searchSnapshot(ctx, "northwind partners");
      assert.deepEqual(
        former?.search.items.map((i) => [i.name, i.status, i.active, (i.address as { line1: string }).line1]),
        [["NORTHWIND HOLDINGS LLP", "Liquidation", false, "PO Box 123"]],
      );
      assert.equal(
        (await importSnapshot(ctx)).finishedAt,
        status.finishedAt,
        "the same snapshot is not read twice",
      );
    } finally {
      await ctx.close();
    }
  });

  it("malformed rows are reported with file and line; the rest is imported", async () => {
    const ctx = await openFamilyContext(family);
    try {
      const status = await importSnapshot(ctx, { sampleDir: MALFORMED_DIR });
      assert.deepEqual([status.rows, status.errors], [2, 3]);
      assert.deepEqual(
        status.errorSample.map((e) => [e.file, e.line, e.message]),
        [
          ["BasicCompanyDataAsOneFile-2026-10-01.csv", 3, "5 columns where the header has 55"],
          ["BasicCompanyDataAsOneFile-2026-10-01.csv", 4, 'CompanyNumber "ABC" is not a company number'],
          ["BasicCompanyDataAsOneFile-2026-10-01.csv", 5, "company 07654321 has no CompanyName"],
        ],
      );
      assert.deepEqual(
        (await searchSnapshot(ctx, "limited"))?.search.items.map((i) => i.id),
        ["00445790", "09876543"],
        "TESCO PLC by its earlier name TESCO STORES (HOLDINGS) LIMITED",
      );
    } finally {
      await ctx.close();
    }
  });
});

describe("the snapshot index (live, loopback), without a Companies House key", () => {
  it("reads the download page, downloads the zip, imports it; a new month replaces the index", async () => {
    const server = await startBytesServer();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gb-snapshot-"));
    const csv = fs.readFileSync(path.join(SNAPSHOT_SAMPLE_DIR, "BasicCompanyDataAsOneFile-2026-11-01.csv"));
    const page = (date: string) =>
      Buffer.from(
        `<a href="BasicCompanyDataAsOneFile-${date}.zip">BasicCompanyDataAsOneFile-${date}.zip</a>`,
      );
    server.serve("/en_output.html", page("2026-11-01"), '"p1"');
    server.serve(
      "/BasicCompanyDataAsOneFile-2026-11-01.zip",
      zipOf([{ name: "BasicCompanyDataAsOneFile-2026-11-01.csv", data: csv }]),
      '"z1"',
    );
    const ctx = await openFamilyContext(family, {
      UPSTREAMS: "live",
      DATA_DIR: dataDir,
      GOV_GB_COMPANIES_HOUSE_DOWNLOAD_BASE_URL: server.baseUrl,
    });
    try {
      const first = await importSnapshot(ctx);
      assert.deepEqual([first.release, first.rows], ["2026-11-01", 5]);
      const zips = server.requests.filter((r) => r.path.endsWith(".zip")).length;
      await importSnapshot(ctx);
      assert.equal(
        server.requests.filter((r) => r.path.endsWith(".zip")).length,
        zips,
        "no download for a known month",
      );

      const december = Buffer.from(csv.toString("utf8").split("\r\n").slice(0, 2).join("\r\n"));
      server.serve("/en_output.html", page("2026-12-01"), '"p2"');
      server.serve(
        "/BasicCompanyDataAsOneFile-2026-12-01.zip",
        zipOf([{ name: "BasicCompanyDataAsOneFile-2026-12-01.csv", data: december }]),
        '"z2"',
      );
      const next = await importSnapshot(ctx);
      assert.deepEqual([next.release, next.rows], ["2026-12-01", 1]);
      const found = await searchSnapshot(ctx, "tesco");
      assert.deepEqual([found?.search.totalCount, found?.recordedSample], [1, false]);
      assert.deepEqual(fs.readdirSync(path.join(dataDir, "bulk", "co-gb-snapshot")).sort(), [
        "BasicCompanyDataAsOneFile-2026-12-01.zip",
        "BasicCompanyDataAsOneFile-2026-12-01.zip.json",
      ]);
    } finally {
      await ctx.close();
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("GET /v1/gov/gb/companies with the snapshot index", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ WORKER_POLL_MS: "20" }, [family(loadConfig({ UPSTREAMS: "replay" }))]);
  });
  after(() => service.stop());

  it("before the first import the sample is the API's; after it, names come from the snapshot, no API call", async () => {
    const apiSample = Answer.parse(
      await (await fetch(`${service.url}/v1/gov/gb/companies?q=tesco&sample=1`)).json(),
    );
    assert.equal(
      apiSample.source.startsWith("https://api.company-information.service.gov.uk/search/companies"),
      true,
    );
    await service.worker.runWarmer(GB_SNAPSHOT_WARMER);

    const sample = await fetch(`${service.url}/v1/gov/gb/companies?q=tesco&sample=1`);
    assert.equal(sample.status, 200);
    const body = Answer.parse(await sample.json());
    assert.equal(
      body.source,
      "https://download.companieshouse.gov.uk/BasicCompanyDataAsOneFile-2026-11-01.zip",
    );
    assert.deepEqual([body.count, body.totalCount, body.items?.[0]?.snapshot], [3, 3, "2026-11-01"]);
    assert.match(body.licence.notice ?? "", /^RECORDED SAMPLE/);

    // "outage" has a recording that fails: answered from the index it is a plain miss, charged as a search.
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const miss = await payingFetch(buyer)(`${service.url}/v1/gov/gb/companies?q=outage`);
    assert.equal(miss.status, 200);
    const missBody = Answer.parse(await miss.json());
    assert.deepEqual(
      [missBody.match, missBody.message],
      [false, 'No company in Companies House API matches "outage".'],
    );
    assert.equal(
      await service.store.cache.count("gov-co-gb-search"),
      1,
      "only the API sample asked before the import",
    );

    const coverage = (await (await fetch(`${service.url}/v1/gov/gb/companies/coverage`)).json()) as {
      nameIndex: { loaded: boolean; rows: number; release: string };
    };
    assert.deepEqual([coverage.nameIndex.loaded, coverage.nameIndex.rows], [true, 5]);
    const status = (await (await fetch(`${service.url}/v1/gov/gb/companies/status`)).json()) as {
      snapshot: { release: string; ageDays: number; lastOkAt: string | null; errors: number };
    };
    assert.match(status.snapshot.release, /^2026-11-01\+sample-/);
    assert.deepEqual([status.snapshot.ageDays, status.snapshot.errors], [0, 0]);
    assert.equal(typeof status.snapshot.lastOkAt, "string");
  });
});
