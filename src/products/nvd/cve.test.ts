import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import type { AnyProduct, Warmer } from "../../catalog/product.ts";
import { CveQuery, CveSearchAnswer, LOOKUP_RETRY_AFTER_SEC, SYNC_RETRY_AFTER_SEC } from "./cve.ts";
import { openTestContext, runWarmerRecorded } from "./harness.test-helper.ts";
import { CVE_LOOKUP_QUEUE } from "./lookup.ts";
import { CveRecordAnswer } from "./record.ts";
import { createNvdRuntime, nvdWarmers } from "./runtime.ts";
import { nvdSettings } from "./settings.ts";

function issueOf(params: Record<string, string>) {
  const result = CveQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("nvd.cve query", () => {
  it("accepts an id in any case, or keywords with an optional limit", () => {
    assert.deepEqual(CveQuery.parse({ id: " cve-2021-44228 " }), { id: "CVE-2021-44228" });
    assert.deepEqual(CveQuery.parse({ id: "CVE-2024-1234567" }), { id: "CVE-2024-1234567" });
    assert.deepEqual(CveQuery.parse({ q: " apache log4j " }), { q: "apache log4j" });
    assert.deepEqual(CveQuery.parse({ q: "xss", limit: "100" }), { q: "xss", limit: 100 });
  });

  it("rejects a malformed id naming id", () => {
    for (const id of ["", "CVE-21-44228", "CVE-2021-123", "2021-44228", "CVE-2021-44228x", "log4shell"]) {
      const issue = issueOf({ id });
      assert.equal(issue.path, "id", id);
      assert.match(issue.message, /CVE id/, id);
    }
  });

  it("rejects empty, wordless, over-long and too-many-word queries naming q", () => {
    const cases: Array<[string, RegExp]> = [
      ["", /must not be empty/],
      ["   ", /must not be empty/],
      ["?!-", /letters or digits/],
      ["x".repeat(201), /at most 200/],
      [Array.from({ length: 17 }, (_, i) => `w${i}`).join(" "), /at most 16 words/],
    ];
    for (const [q, message] of cases) {
      const issue = issueOf({ q });
      assert.equal(issue.path, "q", q);
      assert.match(issue.message, message, q);
    }
  });

  it("rejects a limit outside 1 to 100 or not an integer naming limit", () => {
    for (const limit of ["0", "101", "-1", "2.5", "abc", ""]) {
      const issue = issueOf({ q: "xss", limit });
      assert.equal(issue.path, "limit", limit);
      assert.match(issue.message, /integer from 1 to 100/, limit);
    }
  });

  it("wants exactly one of id and q, and limit only with q", () => {
    assert.deepEqual(issueOf({}), {
      path: "id",
      message: "give id (a CVE id such as CVE-2021-44228) or q (keywords over recent CVEs)",
    });
    assert.deepEqual(issueOf({ limit: "5" }).path, "id");
    assert.deepEqual(issueOf({ id: "CVE-2021-44228", q: "log4j" }), {
      path: "q",
      message: "give either id or q, not both",
    });
    assert.deepEqual(issueOf({ id: "CVE-2021-44228", limit: "5" }), {
      path: "limit",
      message: "limit applies to keyword searches (q) only",
    });
  });
});

describe("nvd.cve over the recorded samples (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  let cve: AnyProduct;
  let warmer: (name: string) => Warmer;
  const ask = (params: Record<string, string>) =>
    cve.handle({ query: CveQuery.parse(params), body: undefined }, ctx);
  const runLookupJobs = async () => {
    for (;;) {
      const job = await ctx.service.store.jobs.claim([CVE_LOOKUP_QUEUE], 60_000);
      if (!job) return;
      await ctx.family.jobs![CVE_LOOKUP_QUEUE]!(JSON.parse(job.payload), ctx);
      await ctx.service.store.jobs.complete(job.id);
    }
  };

  before(async () => {
    ctx = await openTestContext();
    cve = ctx.family.products.find((p) => p.sku === "nvd.cve")!;
    warmer = (name) => ctx.family.warmers!.find((w) => w.name === name)!;
  });
  after(() => ctx.close());

  it("declares its catalog entry", () => {
    assert.equal(cve.path, "/v1/nvd/cve");
    assert.equal(cve.price, "0.005");
    assert.deepEqual(cve.sample, { id: "CVE-2021-44228" });
    assert.match(cve.source?.notice ?? "", /not endorsed or certified by the NVD/);
  });

  it("an unknown id: 404 not cached, not charged, and one lookup job however often it is asked", async () => {
    for (let i = 0; i < 3; i++) {
      const outcome = await ask({ id: "cve-2021-44228" });
      assert.equal(outcome.status, 404);
      assert.equal(outcome.body.error, "not_cached");
      assert.equal(outcome.body.charged, false);
      assert.equal(outcome.body.retryAfterSec, LOOKUP_RETRY_AFTER_SEC);
      assert.match(String(outcome.body.message), /CVE-2021-44228 is not cached yet; it has been queued/);
    }
    assert.deepEqual(await ctx.store.jobs.counts(CVE_LOOKUP_QUEUE), {
      queued: 1,
      running: 0,
      done: 0,
      dead: 0,
    });
    const job = await ctx.store.jobs.get(CVE_LOOKUP_QUEUE, "CVE-2021-44228");
    assert.deepEqual(JSON.parse(job!.payload), { id: "CVE-2021-44228" });
  });

  it("once the job fetched it: the record with the spec's fields first, NVD's known-exploited fields joined", async () => {
    await runLookupJobs();
    const outcome = await ask({ id: "CVE-2021-44228" });
    assert.equal(outcome.status, 200);
    const body = CveRecordAnswer.parse(outcome.body);
    assert.deepEqual(Object.keys(body).slice(0, 11), [
      "ok",
      "id",
      "published",
      "lastModified",
      "vulnStatus",
      "severity",
      "score",
      "description",
      "source",
      "fetchedAt",
      "notice",
    ]);
    assert.equal(body.id, "CVE-2021-44228");
    assert.equal(body.published, "2021-12-10T10:15:09.143Z");
    assert.equal(body.vulnStatus, "Analyzed");
    assert.deepEqual([body.severity, body.score, body.cvss?.version], ["CRITICAL", 10, "3.1"]);
    assert.match(body.description, /^Apache Log4j2 2\.0-beta9/);
    assert.equal(body.source, "https://services.nvd.nist.gov/rest/json/cves/2.0?cveId=CVE-2021-44228");
    assert.match(body.notice, /RECORDED SAMPLE, NOT LIVE DATA/);
    assert.match(
      body.notice,
      /This product uses data from the NVD API but is not endorsed or certified by the NVD\./,
    );
    assert.equal(body.knownExploited, true);
    assert.deepEqual(
      [body.kev?.source, body.kev?.dateAdded, body.kev?.dueDate],
      ["nvd-record", "2021-12-10", "2021-12-24"],
    );
    assert.deepEqual(body.affected, [{ vendor: "apache", product: "log4j" }]);
    assert.equal(body.url, "https://nvd.nist.gov/vuln/detail/CVE-2021-44228");
  });

  it("an id NVD has no record of: 404 not found, and not queued again within a day", async () => {
    const first = await ask({ id: "CVE-2026-99999" });
    assert.equal(first.body.error, "not_cached");
    await runLookupJobs();
    const second = await ask({ id: "CVE-2026-99999" });
    assert.equal(second.status, 404);
    assert.equal(second.body.error, "not_found");
    assert.equal(second.body.charged, false);
    assert.match(String(second.body.message), /NVD has no record of CVE-2026-99999/);
    assert.equal((await ctx.store.jobs.counts(CVE_LOOKUP_QUEUE)).queued, 0);
  });

  it("a keyword search before the first sync: 404 not cached, and the sync is queued", async () => {
    const outcome = await ask({ q: "edgegate" });
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_cached");
    assert.equal(outcome.body.retryAfterSec, SYNC_RETRY_AFTER_SEC);
    assert.equal((await ctx.store.jobs.get("warmer", "nvd.sync"))?.state, "queued");
  });

  it("after the sync: every word must match, newest published first, rejected records left out", async () => {
    const counts = await runWarmerRecorded(warmer("nvd.sync"), ctx);
    assert.equal(counts.cves, 6);
    const outcome = await ask({ q: "EdgeGate" });
    assert.equal(outcome.status, 200);
    const body = CveSearchAnswer.parse(outcome.body);
    assert.deepEqual(
      body.results.map((r) => r.id),
      ["CVE-2026-41001", "CVE-2026-41005"],
    );
    assert.deepEqual([body.match, body.count, body.totalCount, body.limit], [true, 2, 2, 25]);
    assert.deepEqual(body.terms, ["edgegate"]);
    assert.equal(body.window.days, 120);
    assert.equal(body.window.to, "2026-11-20T09:12:44.027Z");
    assert.equal(body.source, "https://services.nvd.nist.gov/rest/json/cves/2.0");
    assert.match(body.notice, /not endorsed or certified by the NVD/);
    assert.equal(body.message, undefined);
    const first = body.results[0]!;
    assert.deepEqual([first.severity, first.score, first.knownExploited], ["CRITICAL", 9.3, false]);

    const narrowed = CveSearchAnswer.parse((await ask({ q: "edgegate certificate" })).body);
    assert.deepEqual(
      narrowed.results.map((r) => r.id),
      ["CVE-2026-41005"],
    );
    const limited = CveSearchAnswer.parse((await ask({ q: "edgegate", limit: "1" })).body);
    assert.deepEqual([limited.count, limited.totalCount, limited.results[0]?.id], [1, 2, "CVE-2026-41001"]);
  });

  it("finds records by CWE id, product name and old CVEs modified recently", async () => {
    const ids = async (q: string) => CveSearchAnswer.parse((await ask({ q })).body).results.map((r) => r.id);
    assert.deepEqual(await ids("CWE-79"), ["CVE-2026-41003"]);
    assert.deepEqual(await ids("rw-3000_firmware"), ["CVE-2026-41003"]);
    assert.deepEqual(await ids("sql injection"), ["CVE-2015-90417"]);
    assert.deepEqual(await ids("withdrawn"), [], "rejected records are not searchable");
  });

  it("a search without hits is a 200 with match false and a message", async () => {
    const outcome = await ask({ q: "edgegate sql" });
    assert.equal(outcome.status, 200);
    const body = CveSearchAnswer.parse(outcome.body);
    assert.deepEqual([body.match, body.count, body.totalCount, body.results.length], [false, 0, 0, 0]);
    assert.match(
      body.message ?? "",
      /No CVE last modified in the 120 days up to .* matches every word of "edgegate sql"/,
    );
  });

  it("joins CISA's catalogue once it is refreshed: known-exploited hits and records", async () => {
    await runWarmerRecorded(warmer("nvd.kev"), ctx);
    const hit = CveSearchAnswer.parse((await ask({ q: "widgetsoft" })).body).results[0]!;
    assert.equal(hit.id, "CVE-2026-41002");
    assert.equal(hit.knownExploited, true);
    assert.deepEqual(hit.kev, {
      source: "cisa-kev-catalog",
      dateAdded: "2026-11-14",
      dueDate: "2026-12-05",
      vendorProject: "WidgetSoft",
      product: "Portal",
      vulnerabilityName: "WidgetSoft Portal Path Traversal Vulnerability",
      requiredAction:
        "Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.",
      knownRansomwareCampaignUse: "Unknown",
      notes:
        "https://widgetsoft.example/security/WS-2026-07 ; https://nvd.nist.gov/vuln/detail/CVE-2026-41002",
    });
    const log4j = CveRecordAnswer.parse((await ask({ id: "CVE-2021-44228" })).body);
    assert.equal(log4j.kev?.source, "cisa-kev-catalog");
    assert.equal(log4j.kev?.knownRansomwareCampaignUse, "Known");
    const notListed = CveRecordAnswer.parse((await ask({ id: "CVE-2026-41003" })).body);
    assert.equal(notListed.knownExploited, false);
    assert.equal(notListed.kev, null);
  });

  it("another node's index picks up the new sync generation from the store", async () => {
    const settings = nvdSettings({});
    const otherNode = createNvdRuntime(settings, { recheckMs: 0 });
    const before = await otherNode.search.current(ctx);
    const sizeBefore = before.index.size;
    assert.equal(sizeBefore, 5);
    // This node syncs again (a new generation); the other node rebuilds on its next question.
    const thisNode = createNvdRuntime(settings);
    const sync = nvdWarmers(thisNode).find((w) => w.name === "nvd.sync")!;
    await runWarmerRecorded(sync, ctx);
    const stale = await otherNode.search.current(ctx);
    assert.equal(stale.generation, before.generation, "the old index answers while the new one builds");
    await otherNode.search.settled();
    const fresh = await otherNode.search.current(ctx);
    assert.ok(fresh.generation > before.generation);
    assert.equal(fresh.index.size, 5);
  });
});
