// FRED's terms: live FRED off without FRED_REDISTRIBUTION=permitted (503 not_configured before payment, the
// free routes say why with the link), copyrighted series naming their owners, the 25-character id limit, and
// a FRED 400 recorded as a missing series instead of failing the job on every request.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { readSummaryRecent, SERIES_QUEUE } from "./documents.ts";
import { openLiveContext, productOf, TEST_API_KEY } from "./harness.test-helper.ts";
import { fredFamily } from "./index.ts";
import { seriesJobHandler } from "./jobs.ts";
import { FredSeriesAnswer, FredSeriesQuery } from "./series.ts";
import { readFredSettings } from "./settings.ts";
import { FRED_LEGAL_TERMS_URL } from "./terms.ts";

describe("the FRED redistribution gate", () => {
  it("live without FRED_REDISTRIBUTION=permitted: the family declares itself unavailable, with the terms' link", () => {
    const family = fredFamily(loadConfig({ UPSTREAMS: "live", FRED_API_KEY: TEST_API_KEY }));
    assert.match(family.unavailable?.reason ?? "", /Terms of Use prohibit storing/);
    assert.equal(family.unavailable?.docs, FRED_LEGAL_TERMS_URL);
    assert.match(family.unavailable?.fix ?? "", /FRED_REDISTRIBUTION=permitted/);
  });

  it("permitted but without a key: unavailable for the key; permitted with a key, or replay: available", () => {
    const noKey = fredFamily(loadConfig({ UPSTREAMS: "live", FRED_REDISTRIBUTION: "permitted" }));
    assert.match(noKey.unavailable?.reason ?? "", /FRED_API_KEY is not set/);
    const ready = fredFamily(
      loadConfig({ UPSTREAMS: "live", FRED_REDISTRIBUTION: "permitted", FRED_API_KEY: TEST_API_KEY }),
    );
    assert.equal(ready.unavailable, undefined);
    assert.equal(fredFamily(loadConfig({ UPSTREAMS: "replay" })).unavailable, undefined);
  });

  describe("served live without permission", () => {
    let service: TestService;
    before(async () => {
      const env = { UPSTREAMS: "live", FRED_API_KEY: TEST_API_KEY, FRED_BASE_URL: "http://127.0.0.1:9" };
      service = await startTestService(env, [fredFamily(loadConfig(env))]);
    });
    after(() => service.stop());

    it("the series route answers 503 not_configured without asking for payment, and queues nothing", async () => {
      const response = await fetch(`${service.url}/v1/macro/fred/series?seriesId=GDP`);
      assert.equal(response.status, 503);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.error, "not_configured");
      assert.equal(body.charged, false);
      assert.equal(body.docs, FRED_LEGAL_TERMS_URL);
      assert.match(String(body.reason), /St\. Louis Fed's Terms of Use/);
      assert.deepEqual(await service.store.jobs.counts(SERIES_QUEUE), {
        queued: 0,
        running: 0,
        done: 0,
        dead: 0,
      });
    });

    it("status and coverage answer free and say why, with the link", async () => {
      const status = (await (await fetch(`${service.url}/v1/macro/fred/status`)).json()) as Record<
        string,
        unknown
      >;
      assert.equal(status.configured, false);
      assert.match(String(status.problem), /fred\.stlouisfed\.org\/legal\/terms/);
      assert.equal((status.notConfigured as { docs: string }).docs, FRED_LEGAL_TERMS_URL);
      const coverage = await fetch(`${service.url}/v1/macro/fred/coverage`);
      assert.equal(coverage.status, 200);
      const body = (await coverage.json()) as { notConfigured?: { reason: string; docs: string } };
      assert.equal(body.notConfigured?.docs, FRED_LEGAL_TERMS_URL);
    });
  });
});

describe("series ids and FRED's 400", () => {
  it("an id over 25 characters is refused naming seriesId (FRED's own limit)", () => {
    const result = FredSeriesQuery.safeParse({ seriesId: "A".repeat(26) });
    assert.equal(result.success, false);
    assert.equal(result.error?.issues[0]?.path.join("."), "seriesId");
    assert.match(result.error?.issues[0]?.message ?? "", /at most 25/);
    assert.equal(FredSeriesQuery.parse({ seriesId: "a".repeat(25) }).seriesId, "A".repeat(25));
  });

  it("a FRED 400 about the id marks the series missing: the job succeeds and the next request is a 404", async () => {
    const live = await openLiveContext({}, (url) =>
      url.searchParams.get("series_id") === "ABCDEFGHIJKLMNOPQRSTUVWXY"
        ? {
            status: 400,
            headers: { "content-type": "application/json" },
            body: '{"error_code":400,"error_message":"Bad Request.  Series IDs should be 25 or less alphanumeric characters."}',
          }
        : undefined,
    );
    try {
      const settings = readFredSettings(live.ctx.service.config.env);
      await seriesJobHandler(settings)({ seriesId: "ABCDEFGHIJKLMNOPQRSTUVWXY" }, live.ctx);
      const summary = await readSummaryRecent(live.ctx.store, "ABCDEFGHIJKLMNOPQRSTUVWXY", 0);
      assert.equal(summary?.body.status, "missing");
      const series = productOf(live.ctx, "macro.fred.series");
      const input = { query: { seriesId: "ABCDEFGHIJKLMNOPQRSTUVWXY" }, body: undefined };
      const outcome = await series.check?.(input, live.ctx);
      assert.equal(outcome?.status, 404);
      assert.match(String(outcome?.body.message), /25 or less/);
      assert.equal(live.upstream.requests.length, 1, "asked FRED once");
    } finally {
      await live.close();
    }
  });

  it("a FRED 400 about the API key still fails the job (a configuration fault, not a missing series)", async () => {
    const live = await openLiveContext({}, () => ({
      status: 400,
      headers: { "content-type": "application/json" },
      body: '{"error_code":400,"error_message":"Bad Request.  The value for variable api_key is not registered."}',
    }));
    try {
      const settings = readFredSettings(live.ctx.service.config.env);
      await assert.rejects(seriesJobHandler(settings)({ seriesId: "GDP" }, live.ctx), /api_key/);
      assert.equal(await readSummaryRecent(live.ctx.store, "GDP", 0), undefined);
    } finally {
      await live.close();
    }
  });
});

describe("copyrighted series name their owner", () => {
  it("a 'copyrighted: citation required' series carries its release's sources in the answer and notice", async () => {
    const live = await openLiveContext();
    try {
      const settings = readFredSettings(live.ctx.service.config.env);
      await seriesJobHandler(settings)({ seriesId: "NASDAQCOM" }, live.ctx);
      const series = productOf(live.ctx, "macro.fred.series");
      const outcome = await series.handle({ query: { seriesId: "NASDAQCOM" }, body: undefined }, live.ctx);
      assert.equal(outcome.status, 200);
      const body = FredSeriesAnswer.parse(outcome.body);
      assert.equal(body.copyright, "copyrighted: citation required");
      assert.deepEqual(body.owners, [{ name: "NASDAQ OMX Group", link: "http://www.nasdaq.com/" }]);
      assert.match(body.notice, /Copyright: NASDAQ OMX Group; cite the owner/);
      const paths = live.upstream.requests.map(
        (r) => `${r.pathname}?${r.searchParams.get("release_id") ?? ""}`,
      );
      assert.ok(paths.includes("/fred/series/release?"));
      assert.ok(paths.includes("/fred/release/sources?200"));
    } finally {
      await live.close();
    }
  });

  it("a public-domain series asks for no release and names no owner", async () => {
    const live = await openLiveContext();
    try {
      await seriesJobHandler(readFredSettings(live.ctx.service.config.env))({ seriesId: "UNRATE" }, live.ctx);
      const outcome = await productOf(live.ctx, "macro.fred.series").handle(
        { query: { seriesId: "UNRATE" }, body: undefined },
        live.ctx,
      );
      const body = FredSeriesAnswer.parse(outcome.body);
      assert.deepEqual(body.owners, []);
      assert.doesNotMatch(body.notice, /Copyright:/);
      assert.ok(!live.upstream.requests.some((r) => r.pathname.startsWith("/fred/release")));
    } finally {
      await live.close();
    }
  });
});
