import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  CONSOLIDATED_XML,
  type LoopbackUpstream,
  openTestContext,
  SDN_XML,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { readVersion } from "./list-store.ts";
import { refreshAndIndex } from "./refresh.ts";
import { OfacRuntime } from "./runtime.ts";

describe("the ofac.lists warmer", () => {
  let upstream: LoopbackUpstream;
  let ctx: FamilyTestContext;
  let sdn = SDN_XML;
  let fail = false;

  before(async () => {
    // No ETag: the warmer must notice an unchanged publication by its Publish_Date.
    upstream = await startLoopbackUpstream((url) => {
      if (fail) return { status: 404, body: "gone" };
      if (url.pathname.endsWith("/SDN.XML")) return { status: 200, body: sdn };
      return { status: 200, body: CONSOLIDATED_XML };
    });
    ctx = await openTestContext({ UPSTREAMS: "live", OFAC_BASE_URL: upstream.baseUrl });
  });
  after(async () => {
    await ctx.close();
    await upstream.close();
  });

  const node = new OfacRuntime();
  const otherNode = new OfacRuntime();

  it("downloads both lists, stores them and builds this node's index", async () => {
    const counts = await refreshAndIndex(ctx, node);
    assert.deepEqual(counts.changed, ["SDN", "CONSOLIDATED"]);
    assert.equal(counts.entries, 8);
    assert.equal(node.snapshot?.index.entries.length, 8);
    assert.equal(
      (await otherNode.current(ctx))?.version,
      counts.version,
      "another node builds from the store",
    );
  });

  it("the same Publish_Date and Record_Count are not parsed again", async () => {
    const before = (await readVersion(ctx))?.body.version;
    const counts = await refreshAndIndex(ctx, node);
    assert.deepEqual(counts.changed, []);
    assert.deepEqual(counts.unchanged, ["SDN", "CONSOLIDATED"]);
    assert.equal(counts.version, before);
  });

  it("a new SDN publication is indexed; the unchanged consolidated list keeps its entries", async () => {
    sdn = SDN_XML.replace("07/24/2026", "07/28/2026")
      .replace("<Record_Count>6<", "<Record_Count>5<")
      .replace(/<sdnEntry>\s*<uid>50123<\/uid>[\s\S]*?<\/sdnEntry>/, "");
    const counts = await refreshAndIndex(ctx, node);
    assert.deepEqual(counts.changed, ["SDN"]);
    assert.equal(counts.entries, 7);
    assert.match(counts.version, /SDN:2026-07-28:5/);
    const other = await otherNode.current(ctx, { force: true });
    assert.equal(other?.version, counts.version);
    assert.equal(other?.index.hasUid(50123), false);
    assert.equal(other?.index.hasUid(17264), true);
  });

  it("an upstream failure fails the run and keeps the lists on file", async () => {
    fail = true;
    const version = (await readVersion(ctx))?.body.version;
    await assert.rejects(refreshAndIndex(ctx, node), /HTTP 404/);
    assert.equal((await readVersion(ctx))?.body.version, version);
    assert.equal(node.snapshot?.index.entries.length, 7);
  });
});
