// The index warmer against a loopback Cellar: a maintenance page or a cut-short answer never replaces the index.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FamilyTestContext,
  type LoopbackUpstream,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { legislationFamily } from "../test-harness.ts";
import { euLegislation } from "./index.ts";
import { buildEuIndex, EU_INDEX } from "./warmer.ts";

const row = (n: number) => ({
  celex: { type: "literal", value: `3202${n}R000${n}` },
  work: { type: "uri", value: `http://publications.europa.eu/resource/cellar/0000000${n}` },
  type: { type: "uri", value: "http://publications.europa.eu/resource/authority/resource-type/REG" },
  title: { type: "literal", value: `Regulation (EU) 202${n}/${n} on sample matters number ${n}` },
});
let answer: () => { status: number; headers?: Record<string, string>; body: string };
let upstream: LoopbackUpstream;
let ctx: FamilyTestContext;

before(async () => {
  upstream = await startLoopbackUpstream(() => answer());
  ctx = await openFamilyContext(legislationFamily("gov-legislation-eu", [euLegislation]), {
    UPSTREAMS: "live",
    GOV_EU_CELLAR_BASE_URL: upstream.baseUrl,
  });
});
after(async () => {
  await ctx.close();
  await upstream.close();
});

const sparqlJson = (rows: unknown[]) => ({
  status: 200,
  headers: { "content-type": "application/sparql-results+json" },
  body: JSON.stringify({ head: { vars: [] }, results: { bindings: rows } }),
});

describe("gov.eu.legislation.index against a loopback Cellar", () => {
  it("builds the index from SPARQL pages, sending the query and the JSON format", async () => {
    answer = () => sparqlJson([row(1), row(2), row(3), row(4)]);
    assert.deepEqual(await buildEuIndex(ctx), { pages: 1, indexed: 4 });
    const sent = upstream.requests.at(-1);
    assert.equal(sent?.pathname, "/sparql");
    assert.equal(sent?.searchParams.get("format"), "application/sparql-results+json");
    assert.match(sent?.searchParams.get("query") ?? "", /ORDER BY \?celex LIMIT 5000/);
  });

  it("a maintenance page served with 200 fails the build and keeps the index", async () => {
    answer = () => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html>maintenance</html>",
    });
    await assert.rejects(buildEuIndex(ctx), /maintenance page/);
    assert.equal(await GovTitleIndex.of(ctx.store).count(EU_INDEX), 4);
  });

  it("an answer cut to under half the index is refused", async () => {
    answer = () => sparqlJson([row(1)]);
    await assert.rejects(buildEuIndex(ctx), /1 acts against 4 indexed: refused/);
    assert.equal(await GovTitleIndex.of(ctx.store).count(EU_INDEX), 4);
  });
});
