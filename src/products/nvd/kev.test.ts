import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  recordedAnswer,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { refreshKev } from "./kev.ts";
import { NvdRepository } from "./repository.ts";
import { KEV_STATE, type KevState } from "./sync-state.ts";
import { KEV_FEED_PATH } from "./upstream.ts";

describe("the KEV refresh against a loopback CISA feed", () => {
  let upstream: LoopbackUpstream;
  let ctx: FamilyTestContext;
  let answer = () => recordedAnswer("kev-feed");
  const conditional: Array<string | undefined> = [];

  after(async () => {
    await ctx?.close();
    await upstream?.close();
  });

  it("downloads the catalogue, stores every entry and remembers its version and validators", async () => {
    upstream = await startLoopbackUpstream((_url, request) => {
      const etag = request.headers["if-none-match"];
      conditional.push(etag);
      if (etag === '"kev-2026.11.20"') return { status: 304, body: "" };
      return answer();
    });
    ctx = await openTestContext({ UPSTREAMS: "live", CISA_KEV_BASE_URL: upstream.baseUrl });
    const counts = await refreshKev(ctx, new Date("2026-11-21T06:00:00.000Z"));
    assert.deepEqual(counts, { entries: 3, skipped: 0, changed: true, catalogVersion: "2026.11.20" });
    assert.equal(upstream.requests[0]?.pathname, KEV_FEED_PATH);
    const repository = NvdRepository.of(ctx.store);
    assert.deepEqual(await repository.kevCounts(), { entries: 3, stored: 0 });
    const entry = (await repository.getKev(["CVE-2021-44228"])).get("CVE-2021-44228");
    assert.deepEqual(JSON.parse(entry!.cwes), ["CWE-20", "CWE-400", "CWE-502"]);
    const state = await repository.getState<KevState>(KEV_STATE);
    assert.equal(state?.etag, '"kev-2026.11.20"');
    assert.equal(state?.recordedSample, false);
    assert.equal(state?.source, `${upstream.baseUrl}${KEV_FEED_PATH}`);
  });

  it("asks conditionally the next day and keeps the catalogue when CISA says it has not changed", async () => {
    const counts = await refreshKev(ctx, new Date("2026-11-22T06:00:00.000Z"));
    assert.deepEqual(counts, { entries: 3, skipped: 0, changed: false, catalogVersion: "2026.11.20" });
    assert.equal(conditional.at(-1), '"kev-2026.11.20"');
    const state = await NvdRepository.of(ctx.store).getState<KevState>(KEV_STATE);
    assert.equal(state?.checkedAt, "2026-11-22T06:00:00.000Z");
    assert.equal(state?.fetchedAt, "2026-11-21T06:00:00.000Z");
  });

  it("refuses a broken catalogue without touching the stored one", async () => {
    await NvdRepository.of(ctx.store).putState(KEV_STATE, {
      ...(await NvdRepository.of(ctx.store).getState<KevState>(KEV_STATE)),
      etag: null,
    });
    answer = () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"vulnerabilities":[]}',
    });
    await assert.rejects(refreshKev(ctx), /no usable entries/);
    assert.deepEqual(await NvdRepository.of(ctx.store).kevCounts(), { entries: 3, stored: 0 });
  });
});
