// NVD sometimes refuses a page of its documented maximum (2,000) with a 404 and the reason in a `message`
// header: the sync halves the page and goes on from the same startIndex instead of failing.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  pagedWindowAnswer,
  startLoopbackUpstream,
  useFastNvdClient,
} from "./harness.test-helper.ts";
import { NvdRepository } from "./repository.ts";
import { nvdSettings } from "./settings.ts";
import { MIN_PAGE_SIZE, syncRecentCves } from "./sync.ts";

const NOW = new Date("2026-11-21T00:00:00.000Z");

/** NVD on loopback that refuses pages larger than `largest` the way it does: 404, a `message` header. */
async function refusingNvd(largest: number) {
  const upstream = await startLoopbackUpstream((url) => {
    const perPage = Number(url.searchParams.get("resultsPerPage") ?? "2000");
    if (perPage > largest)
      return { status: 404, headers: { message: "Invalid resultsPerPage parameter value" }, body: "" };
    return pagedWindowAnswer(url);
  });
  const env = { UPSTREAMS: "live", NVD_BASE_URL: upstream.baseUrl };
  const ctx = await openTestContext(env);
  useFastNvdClient(ctx);
  return { upstream, ctx, settings: nvdSettings(env) };
}

describe("the CVE sync when NVD refuses large pages", () => {
  const opened: Array<{ upstream: LoopbackUpstream; ctx: FamilyTestContext }> = [];
  after(async () => {
    for (const o of opened) {
      await o.ctx.close();
      await o.upstream.close();
    }
  });

  it("halves the page until NVD accepts it and completes the sync", async () => {
    const h = await refusingNvd(1000);
    opened.push(h);
    const counts = await syncRecentCves(h.ctx, h.settings, { now: NOW });
    assert.equal(counts.complete, true);
    assert.equal(counts.pageSize, 1000);
    assert.equal(counts.cves, 6);
    assert.deepEqual(
      h.upstream.requests.map((u) => [
        u.searchParams.get("resultsPerPage"),
        u.searchParams.get("startIndex"),
      ]),
      [
        ["2000", "0"],
        ["1000", "0"],
      ],
    );
    assert.equal(await NvdRepository.of(h.ctx.store).countAll(), 6);
  });

  it("fails with NVD's own message once even the smallest page is refused, keeping its place", async () => {
    const h = await refusingNvd(10);
    opened.push(h);
    await assert.rejects(
      syncRecentCves(h.ctx, h.settings, { now: NOW }),
      /HTTP 404 .*Invalid resultsPerPage parameter value/,
    );
    const sizes = h.upstream.requests.map((u) => Number(u.searchParams.get("resultsPerPage")));
    assert.deepEqual(sizes, [2000, 1000, 500, 250, 125, 62, MIN_PAGE_SIZE]);
  });
});
