import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { storeItem } from "../../shared/item-cache.ts";
import { routeTest } from "../harness.test-helper.ts";
import { changedLawIds, followJpChanges, jstDay } from "./changes.ts";
import { jpLegislation } from "./index.ts";
import { JP_ACT_QUEUE, JP_CACHE } from "./route.ts";

const harness = routeTest("gov-legislation-jp", [jpLegislation]);

describe("the e-Gov change feed", () => {
  it("days are Japan dates", () => {
    assert.equal(jstDay(new Date("2026-11-24T16:00:00Z"), 0), "20261125");
    assert.equal(jstDay(new Date("2026-11-24T14:00:00Z"), 1), "20261123");
  });

  it("an error answer is refused; a one-law list is still a list", () => {
    assert.throws(
      () => changedLawIds("<DataRoot><Result><Code>1</Code></Result></DataRoot>"),
      /not a successful/,
    );
    assert.deepEqual(
      changedLawIds(
        "<DataRoot><Result><Code>0</Code></Result><ApplData><LawNameListInfo><LawId>129AC0000000089</LawId></LawNameListInfo></ApplData></DataRoot>",
      ),
      ["129AC0000000089"],
    );
  });

  it("queues a fresh fetch of the cached laws that changed, and only those; a 404 day is a day without updates", async () => {
    await storeItem(harness.ctx, JP_CACHE, "129AC0000000089", { id: "129AC0000000089" }, true);
    const counts = await followJpChanges(harness.ctx, new Date("2026-11-24T12:00:00Z"));
    assert.deepEqual(counts, { days: 3, changed: 2, refreshed: 1 });
    assert.equal((await harness.ctx.store.jobs.get(JP_ACT_QUEUE, "129AC0000000089"))?.state, "queued");
    assert.equal(await harness.ctx.store.jobs.get(JP_ACT_QUEUE, "340AC0000000034"), undefined);
  });
});
