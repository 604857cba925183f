import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { normaliseFilingIndex } from "./filing-index.ts";
import { describeItems } from "./form8k-items.ts";
import { EDGAR_RECORDINGS_DIR } from "./index.ts";
import { keyFilings } from "./profile.ts";
import { filingRows, latestFilings, normaliseIdentity, submissionsPages } from "./submissions.ts";

const read = (name: string) => JSON.parse(fs.readFileSync(path.join(EDGAR_RECORDINGS_DIR, name), "utf8"));
const apple = read("CIK0000320193-submissions.json");
const applePage = read("CIK0000320193-submissions-001.json");

describe("SEC submissions", () => {
  it("reads the company's identity and both addresses, empty strings as null", () => {
    const identity = normaliseIdentity(apple);
    assert.equal(identity.cik, "0000320193");
    assert.equal(identity.name, "Apple Inc.");
    assert.deepEqual(identity.tickers, ["AAPL"]);
    assert.equal(identity.fiscalYearEnd, "0927");
    assert.equal(identity.website, null);
    assert.deepEqual(identity.addresses.business, {
      street1: "ONE APPLE PARK WAY",
      street2: null,
      city: "CUPERTINO",
      stateOrCountry: "CA",
      zipCode: "95014",
      stateOrCountryDescription: "CA",
      isForeignLocation: false,
      foreignStateTerritory: null,
      country: null,
      countryCode: null,
    });
    assert.throws(() => normaliseIdentity({ name: "no cik" }), /no CIK/);
  });

  it("zips the parallel arrays of filings.recent and of an extra file by column name", () => {
    const recent = filingRows(apple.filings.recent, null);
    assert.equal(recent.length, 12);
    assert.deepEqual(recent[1], {
      accession: "0000320193-25-000077",
      form: "8-K",
      filingDate: "2025-10-30",
      reportDate: "2025-10-30",
      // As SEC publishes it: US Eastern wall-clock time with a Z.
      acceptanceDateTime: "2025-10-30T16:30:52.000Z",
      act: "34",
      fileNumber: "001-36743",
      filmNumber: "251429977",
      items: ["2.02", "9.01"],
      size: 512345,
      isXBRL: true,
      isInlineXBRL: true,
      primaryDocument: "aapl-20251030.htm",
      primaryDocDescription: "8-K",
      page: null,
    });
    // A Form 4 has no act, file or film number.
    assert.deepEqual(
      [recent[3]?.act, recent[3]?.fileNumber, recent[3]?.filmNumber, recent[3]?.items],
      [null, null, null, []],
    );
    const older = filingRows(applePage, "CIK0000320193-submissions-001.json");
    assert.equal(older.length, 7);
    assert.equal(older[3]?.form, "S-8");
    assert.equal(older[3]?.reportDate, null);
    assert.equal(older[3]?.page, "CIK0000320193-submissions-001.json");
  });

  it("tolerates missing and extra columns", () => {
    const rows = filingRows(
      {
        accessionNumber: ["0000000001-25-000001", "bad"],
        filingDate: ["2025-01-02", "2025-01-03"],
        newColumn: [1, 2],
      },
      null,
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(
      [rows[0]?.form, rows[0]?.size, rows[0]?.isXBRL, rows[0]?.primaryDocument],
      ["", 0, false, null],
    );
    assert.deepEqual(filingRows(undefined, null), []);
  });

  it("lists the extra files newest first and keeps the latest filings, one per accession", () => {
    assert.deepEqual(submissionsPages(apple), [
      {
        name: "CIK0000320193-submissions-001.json",
        filingCount: 7,
        filingFrom: "2022-05-06",
        filingTo: "2024-08-02",
      },
    ]);
    const rows = [...filingRows(applePage, "p"), ...filingRows(apple.filings.recent, null)];
    const latest = latestFilings([...rows, ...rows.slice(0, 2)]);
    assert.equal(latest.length, 19);
    assert.equal(latest[0]?.accession, "0000320193-25-000079");
    assert.equal(latest.at(-1)?.accession, "0000320193-22-000061");
    // The same day's filings are ordered by acceptance time.
    const capped = latestFilings(rows, 5);
    assert.deepEqual(
      capped.map((r) => r.accession),
      [
        "0000320193-25-000079",
        "0000320193-25-000077",
        "0001193125-25-230145",
        "0000320193-25-000073",
        "0000320193-25-000071",
      ],
    );
  });

  it("picks the latest filing of each key category", () => {
    const rows = latestFilings([...filingRows(apple.filings.recent, null), ...filingRows(applePage, "p")]);
    const key = keyFilings("0000320193", rows);
    assert.deepEqual(
      key.map((k) => `${k.category} ${k.form} ${k.accession}`),
      [
        "annualReport 10-K 0000320193-25-000079",
        "quarterlyReport 10-Q 0000320193-25-000071",
        "currentReport 8-K 0000320193-25-000077",
        "proxyStatement DEF 14A 0001308179-25-000008",
        "insiderOwnership 4 0000320193-25-000073",
        "beneficialOwnership SCHEDULE 13G/A 0000102909-25-005678",
        "registrationStatement S-8 0001193125-24-041234",
      ],
    );
  });

  it("describes 8-K items in both numberings", () => {
    assert.deepEqual(describeItems(["2.02", "9.01", "12", "9.99"]), [
      { item: "2.02", description: "Results of Operations and Financial Condition" },
      { item: "9.01", description: "Financial Statements and Exhibits" },
      { item: "12", description: "Results of Operations and Financial Condition" },
      { item: "9.99", description: null },
    ]);
  });
});

describe("filing index (index.json of a filing folder)", () => {
  it("lists the folder's documents with numeric sizes", () => {
    const index = normaliseFilingIndex(read("filing-index-320193-000032019325000079.json"));
    assert.equal(index.directory, "/Archives/edgar/data/320193/000032019325000079");
    assert.equal(index.parent, "/Archives/edgar/data/320193");
    assert.equal(index.documents.length, 7);
    assert.deepEqual(index.documents[0], {
      name: "0000320193-25-000079-index-headers.html",
      type: "text.gif",
      size: null,
      lastModified: "2025-10-31 06:01:26",
    });
    assert.equal(index.documents.find((d) => d.name === "aapl-20250927.htm")?.size, 1537891);
    assert.throws(() => normaliseFilingIndex({}), /no directory/);
  });
});
