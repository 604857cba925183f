import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { runWarmerRecorded } from "../../../test/family-harness.ts";
import { openNpmContext, startLoopbackUpstream } from "./harness.test-helper.ts";
import { lookupPackument, NPM_CACHE, packumentKey } from "./lookup.ts";
import { readNpmSettings } from "./settings.ts";
import { npmWarmer } from "./warmer.ts";

describe("npm warmer and live fetch", () => {
  it("warms the listed packages from the recordings; one failure does not fail the run", async () => {
    const env = { NPM_WARM_PACKAGES: "express,sample-registry-down" };
    const ctx = await openNpmContext(env);
    try {
      const counts = await runWarmerRecorded(npmWarmer(readNpmSettings(env)), ctx);
      assert.deepEqual(counts, { packages: 2, changed: 1, unchanged: 0, failed: 1 });
      const doc = await ctx.store.cache.get(NPM_CACHE, packumentKey("express"));
      assert.equal(doc?.recordedSample, true);
    } finally {
      await ctx.close();
    }
  });

  it("a run where every package fails is a failed run", async () => {
    const env = { NPM_WARM_PACKAGES: "sample-registry-down" };
    const ctx = await openNpmContext(env);
    try {
      await assert.rejects(runWarmerRecorded(npmWarmer(readNpmSettings(env)), ctx), /every package failed/);
    } finally {
      await ctx.close();
    }
  });

  it("a slow registry: the buyer's wait is bounded, the fetch still fills the cache", async () => {
    const slow = await startLoopbackUpstream(async () => {
      await sleep(400);
      return {
        status: 200,
        body: JSON.stringify({
          name: "slowpkg",
          "dist-tags": { latest: "1.0.0" },
          versions: { "1.0.0": {} },
        }),
      };
    });
    const env = { UPSTREAMS: "live", NPM_REGISTRY_BASE_URL: slow.baseUrl };
    const ctx = await openNpmContext(env);
    try {
      const first = await lookupPackument(ctx, readNpmSettings(env), "slowpkg", 100);
      assert.equal(first.ok, false);
      assert.equal(!first.ok && first.timedOut, true);
      await sleep(600);
      const second = await lookupPackument(ctx, readNpmSettings(env), "slowpkg", 100);
      assert.equal(second.ok && second.from, "cache");
      assert.equal(slow.requests.length, 1);
    } finally {
      await ctx.close();
      await slow.close();
    }
  });
});
