import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedJson } from "./harness.test-helper.ts";
import {
  cpeVendorProduct,
  type NormalisedCve,
  normaliseCve,
  normaliseCvePage,
  normaliseKevFeed,
  nvdTimestamp,
  preferredCvss,
  searchTextOf,
} from "./normalise.ts";

function byId(cves: NormalisedCve[], id: string): NormalisedCve {
  const cve = cves.find((c) => c.id === id);
  assert.ok(cve, `${id} is in the page`);
  return cve;
}

describe("normaliseCvePage on the recorded window page", () => {
  const page = normaliseCvePage(recordedJson("cves-modified-window"));

  it("reads the paging figures and every record, keeping NVD's own cve objects", () => {
    assert.equal(page.totalResults, 6);
    assert.equal(page.startIndex, 0);
    assert.equal(page.resultsPerPage, 6);
    assert.equal(page.timestamp, "2026-11-21T06:00:01.517Z");
    assert.deepEqual(
      page.cves.map((c) => c.id),
      [
        "CVE-2026-41001",
        "CVE-2026-41002",
        "CVE-2026-41003",
        "CVE-2015-90417",
        "CVE-2026-41005",
        "CVE-2026-41006",
      ],
    );
    assert.equal(page.raw.length, 6);
    assert.equal(page.raw[1]?.id, "CVE-2026-41002");
    assert.deepEqual(page.skipped, []);
  });

  it("takes severity and score from CVSS v4.0 first, even a CNA's, over a v3.1 score", () => {
    const cve = byId(page.cves, "CVE-2026-41001");
    assert.deepEqual(cve.cvss, {
      version: "4.0",
      baseScore: 9.3,
      baseSeverity: "CRITICAL",
      vectorString: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
      source: "security@examplecorp.example",
      type: "Secondary",
    });
  });

  it("within one version prefers NVD's Primary score over a CNA's Secondary one", () => {
    const cvss = byId(page.cves, "CVE-2026-41002").cvss;
    assert.equal(cvss?.version, "3.1");
    assert.equal(cvss?.type, "Primary");
    assert.equal(cvss?.baseScore, 7.5);
    assert.equal(cvss?.baseSeverity, "HIGH");
  });

  it("falls back to v3.0, then to v2 whose severity sits at the metric level", () => {
    const v30 = byId(page.cves, "CVE-2026-41003").cvss;
    assert.deepEqual([v30?.version, v30?.baseScore, v30?.baseSeverity], ["3.0", 5.4, "MEDIUM"]);
    const v2 = byId(page.cves, "CVE-2015-90417").cvss;
    assert.deepEqual([v2?.version, v2?.baseScore, v2?.baseSeverity], ["2.0", 7.5, "HIGH"]);
  });

  it("leaves severity and score empty for a record NVD has not scored", () => {
    const cve = byId(page.cves, "CVE-2026-41005");
    assert.equal(cve.cvss, null);
    assert.equal(cve.vulnStatus, "Received");
  });

  it("adds the Z NVD leaves off its UTC timestamps", () => {
    const cve = byId(page.cves, "CVE-2015-90417");
    assert.equal(cve.published, "2015-06-02T14:59:03.077Z");
    assert.equal(cve.lastModified, "2026-11-16T02:10:18.443Z");
  });

  it("keeps the English description, CWE ids, and vendors and products of vulnerable configurations only", () => {
    const router = byId(page.cves, "CVE-2026-41003");
    assert.match(router.description, /^SAMPLE: Cross-site scripting/);
    assert.deepEqual(router.cwes, ["CWE-79"]);
    assert.deepEqual(router.affected, [{ vendor: "routerworks", product: "rw-3000_firmware" }]);
    const edge = byId(page.cves, "CVE-2026-41001");
    assert.match(edge.description, /^SAMPLE: A heap-based buffer overflow/);
    assert.deepEqual(edge.affected, []);
  });

  it("reads NVD's copy of the known-exploited fields", () => {
    assert.deepEqual(byId(page.cves, "CVE-2026-41002").nvdKev, {
      dateAdded: "2026-11-14",
      dueDate: "2026-12-05",
      requiredAction:
        "Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.",
      vulnerabilityName: "WidgetSoft Portal Path Traversal Vulnerability",
    });
    assert.equal(byId(page.cves, "CVE-2026-41001").nvdKev, null);
  });

  it("builds the searchable text from id, description, CWEs and vendor/product", () => {
    const text = searchTextOf(byId(page.cves, "CVE-2026-41002"));
    assert.match(text, /^CVE-2026-41002 SAMPLE: A path traversal/);
    assert.match(text, /CWE-22 widgetsoft widget_portal$/);
  });
});

describe("normaliseCvePage on the single-record lookup", () => {
  const page = normaliseCvePage(recordedJson("cve-by-id-log4shell"));
  const cve = byId(page.cves, "CVE-2021-44228");

  it("prefers the v3.1 score over the v2 one", () => {
    assert.deepEqual(
      [cve.cvss?.version, cve.cvss?.baseScore, cve.cvss?.baseSeverity],
      ["3.1", 10, "CRITICAL"],
    );
  });

  it("collects CWEs from every weakness once and one vendor/product for several version ranges", () => {
    assert.deepEqual(cve.cwes, ["CWE-20", "CWE-400", "CWE-502", "CWE-917"]);
    assert.deepEqual(cve.affected, [{ vendor: "apache", product: "log4j" }]);
    assert.equal(cve.references.length, 2);
    assert.deepEqual(cve.references[0]?.tags, ["Release Notes", "Vendor Advisory"]);
  });
});

describe("normaliser edge cases", () => {
  it("rejects answers that are not NVD pages", () => {
    assert.throws(() => normaliseCvePage("nope"), /not a JSON object/);
    assert.throws(() => normaliseCvePage({ vulnerabilities: [] }), /totalResults/);
    assert.throws(
      () => normaliseCvePage({ totalResults: 0, startIndex: 0, resultsPerPage: 0 }),
      /vulnerabilities array/,
    );
  });

  it("skips a broken record with its reason instead of failing the page", () => {
    const page = normaliseCvePage({
      totalResults: 3,
      startIndex: 0,
      resultsPerPage: 3,
      vulnerabilities: [
        { cve: { id: "not-a-cve" } },
        { cve: { id: "CVE-2026-1234", published: "yesterday", lastModified: "2026-01-01T00:00:00" } },
        {
          cve: {
            id: "CVE-2026-12345",
            published: "2026-01-01T00:00:00",
            lastModified: "2026-01-02T00:00:00",
          },
        },
      ],
    });
    assert.deepEqual(
      page.skipped.map((s) => s.index),
      [0, 1],
    );
    assert.match(page.skipped[1]?.reason ?? "", /CVE-2026-1234 lacks a valid published/);
    assert.equal(page.cves[0]?.id, "CVE-2026-12345");
    assert.equal(page.cves[0]?.vulnStatus, "Unknown");
    assert.equal(page.cves[0]?.description, "");
  });

  it("ignores metrics without a usable score and unknown metric keys", () => {
    assert.equal(preferredCvss(undefined), null);
    assert.equal(
      preferredCvss({
        cvssMetricV40: [{ type: "Primary", cvssData: { baseScore: "9.1" } }],
        cvssMetricV99: [{ type: "Primary", cvssData: { baseScore: 5 } }],
      }),
      null,
    );
    const v2 = preferredCvss({
      cvssMetricV40: [{ type: "Primary", cvssData: { baseScore: 11 } }],
      cvssMetricV2: [{ type: "Secondary", cvssData: { baseScore: 4.3 }, baseSeverity: "medium" }],
    });
    assert.deepEqual([v2?.version, v2?.baseScore, v2?.baseSeverity], ["2.0", 4.3, "MEDIUM"]);
  });

  it("reads CPE names with escaped colons and refuses wildcards", () => {
    assert.deepEqual(cpeVendorProduct("cpe:2.3:a:foo\\:bar:baz:1.0:*:*:*:*:*:*:*"), {
      vendor: "foo:bar",
      product: "baz",
    });
    assert.equal(cpeVendorProduct("cpe:2.3:a:*:*:*:*:*:*:*:*:*:*"), null);
    assert.equal(cpeVendorProduct("cpe:/a:apache:log4j"), null);
  });

  it("reads timestamps with or without a zone", () => {
    assert.equal(nvdTimestamp("2026-01-02T03:04:05"), "2026-01-02T03:04:05.000Z");
    assert.equal(nvdTimestamp("2026-01-02T03:04:05.5+01:00"), "2026-01-02T02:04:05.500Z");
    assert.equal(nvdTimestamp("2026-01-02"), null);
    assert.equal(nvdTimestamp(20260102), null);
  });

  it("falls back to the first description when there is no English one", () => {
    const cve = normaliseCve({
      id: "CVE-2026-0001",
      published: "2026-01-01T00:00:00",
      lastModified: "2026-01-01T00:00:00",
      descriptions: [{ lang: "fr", value: "Une faille" }],
    });
    assert.ok(!("error" in cve));
    assert.equal(cve.description, "Une faille");
  });
});

describe("normaliseKevFeed", () => {
  it("reads the recorded catalogue keyed by cveID, with cwes absent on old entries", () => {
    const catalogue = normaliseKevFeed(recordedJson("kev-feed"));
    assert.equal(catalogue.catalogVersion, "2026.11.20");
    assert.equal(catalogue.dateReleased, "2026-11-20T18:01:44.2275Z");
    assert.equal(catalogue.entries.length, 3);
    assert.equal(catalogue.skipped, 0);
    const edge = catalogue.entries.find((e) => e.cveId === "CVE-2025-90001");
    assert.deepEqual(edge?.cwes, []);
    assert.equal(edge?.knownRansomwareCampaignUse, "Known");
    const log4j = catalogue.entries.find((e) => e.cveId === "CVE-2021-44228");
    assert.deepEqual(
      [log4j?.dateAdded, log4j?.dueDate, log4j?.product],
      ["2021-12-10", "2021-12-24", "Log4j2"],
    );
  });

  it("skips malformed entries and refuses an answer with none usable", () => {
    const catalogue = normaliseKevFeed({
      vulnerabilities: [{ cveID: "cve-2024-0001", dateAdded: "2024-01-02" }, { cveID: "CVE-2024-0002" }, "x"],
    });
    assert.deepEqual(
      catalogue.entries.map((e) => e.cveId),
      ["CVE-2024-0001"],
    );
    assert.equal(catalogue.skipped, 2);
    assert.throws(() => normaliseKevFeed({ vulnerabilities: [] }), /no usable entries/);
    assert.throws(() => normaliseKevFeed({ count: 3 }), /vulnerabilities array/);
  });
});
