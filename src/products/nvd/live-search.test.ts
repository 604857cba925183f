import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { openTestContext } from "./harness.test-helper.ts";
import { LiveCveSearch, READ_PAGE } from "./live-search.ts";
import { NvdRepository } from "./repository.ts";
import { CVE_SYNC_STATE, INITIAL_SYNC_STATE } from "./sync-state.ts";

/** More records than two reads of the index build, many sharing a last-modified time. */
const RECORDS = 2 * READ_PAGE + 200;

describe("LiveCveSearch over more records than one read", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
    const repository = NvdRepository.of(ctx.store);
    const cves = Array.from({ length: RECORDS }, (_, i) => {
      // Seven records a second: pages end in the middle of a run of equal last-modified times.
      const at = new Date(Date.UTC(2026, 10, 20, 0, 0, Math.floor(i / 7))).toISOString();
      return {
        cve: {
          id: `CVE-2026-${10000 + i}`,
          published: at,
          lastModified: at,
          vulnStatus: i === 17 ? "Rejected" : "Analyzed",
          description: `Overflow in widget${i} ${i % 2 === 0 ? "even" : "odd"}`,
          cvss: null,
          cwes: [],
          affected: [],
          references: [],
          nvdKev: null,
        },
        raw: {},
      };
    });
    await repository.upsertCves(cves, "sync", new Date().toISOString(), false);
    await repository.putState(CVE_SYNC_STATE, {
      ...INITIAL_SYNC_STATE,
      coveredSince: "2026-11-01T00:00:00.000Z",
      generation: 1,
    });
  });
  after(() => ctx.close());

  it("indexes every record once, rejected ones left out", async () => {
    const loaded = await new LiveCveSearch(120).reload(ctx);
    assert.equal(loaded.index.size, RECORDS - 1);
    assert.equal(loaded.index.search("overflow", 1).total, RECORDS - 1);
    assert.equal(loaded.index.search("even", 1).total, RECORDS / 2);
    for (const i of [0, READ_PAGE - 1, READ_PAGE, READ_PAGE + 1, 2 * READ_PAGE, RECORDS - 1])
      assert.deepEqual(loaded.index.search(`widget${i}`, 5).ids, [`CVE-2026-${10000 + i}`]);
    assert.equal(loaded.index.search("widget17", 5).total, 0);
    // Newest first.
    assert.deepEqual(loaded.index.search("overflow", 2).ids, [
      `CVE-2026-${10000 + RECORDS - 1}`,
      `CVE-2026-${10000 + RECORDS - 2}`,
    ]);
  });
});
