// The index warmer against a loopback Cellar answering the keyset queries over rows in memory: every CELEX is
// read whole whatever page it falls on, rows repeated by named graphs count once, and a read short of Cellar's
// own count (or a maintenance page) never replaces the index.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FamilyTestContext,
  type LoopbackUpstream,
  openFamilyContext,
  startLoopbackUpstream,
} from "../../../../../test/family-harness.ts";
import { readGovFetch } from "../../shared/fetch-health.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { legislationFamily } from "../harness.test-helper.ts";
import type { SparqlBinding } from "../sparql.ts";
import { sparqlStandIn } from "../sparql-stand-in.test-helper.ts";
import { euLegislation } from "./index.ts";
import type { EuSearchItem } from "./normalise.ts";
import { INDEX_PAGE_KEYS } from "./upstream.ts";
import { buildEuIndex, EU_INDEX, EU_SKU } from "./warmer.ts";

const ACTS = INDEX_PAGE_KEYS + 500;
const celexOf = (n: number) =>
  `3${String(2000 + Math.floor(n / 9000)).padStart(4, "0")}R${String(n % 9000).padStart(4, "0")}`;
const literal = (value: string) => ({ type: "literal", value });
const uri = (value: string) => ({ type: "uri", value });
const TYPE = "http://publications.europa.eu/resource/authority/resource-type/";

function rowsOf(n: number): SparqlBinding[] {
  const base = {
    celex: literal(celexOf(n)),
    work: uri(`http://publications.europa.eu/resource/cellar/${String(n).padStart(8, "0")}`),
    type: uri(`${TYPE}REG`),
    title: literal(`Regulation number ${n} on sample matters`),
  };
  // The last CELEX of the first page has three rows (two types, then its ELI): a row-count page cut them apart.
  if (n !== INDEX_PAGE_KEYS - 1) return [base];
  return [
    base,
    { ...base, type: uri(`${TYPE}REG_IMPL`) },
    { ...base, eli: uri("http://data.europa.eu/eli/reg/2000/999/oj") },
  ];
}
const ROWS = Array.from({ length: ACTS }, (_, n) => rowsOf(n)).flat();

let answer: (url: URL) => { status: number; headers?: Record<string, string>; body: string };
let upstream: LoopbackUpstream;
let ctx: FamilyTestContext;

before(async () => {
  upstream = await startLoopbackUpstream((url) => answer(url));
  ctx = await openFamilyContext(legislationFamily("gov-legislation-eu", [euLegislation]), {
    UPSTREAMS: "live",
    GOV_EU_CELLAR_BASE_URL: upstream.baseUrl,
  });
});
after(async () => {
  await ctx.close();
  await upstream.close();
});

const indexed = () => GovTitleIndex.of(ctx.store).count(EU_INDEX);

describe("gov.eu.legislation.index against a loopback Cellar", () => {
  it("reads every CELEX whole by keyset pages, DISTINCT rows (three named graphs would repeat them)", async () => {
    answer = sparqlStandIn(ROWS, "celex", { graphs: 3 });
    const counts = await buildEuIndex(ctx);
    assert.deepEqual(counts, { pages: 2, acts: ACTS, upstreamCount: ACTS, indexed: ACTS });
    const sent = upstream.requests.map((u) => u.searchParams.get("query") ?? "");
    assert.match(sent[0] ?? "", /^SELECT DISTINCT \?celex/m);
    assert.match(
      sent[1] ?? "",
      new RegExp(`FILTER\\(STR\\(\\?celex\\) > "${celexOf(INDEX_PAGE_KEYS - 1)}"\\)`),
    );
    assert.match(sent.at(-1) ?? "", /COUNT\(DISTINCT \?celex\)/);
    assert.equal(upstream.requests.at(-1)?.searchParams.get("format"), "application/sparql-results+json");
    const boundary = await GovTitleIndex.of(ctx.store).search<EuSearchItem>(EU_INDEX, "number 999", 5);
    const act = boundary?.items.find((i) => i.id === celexOf(INDEX_PAGE_KEYS - 1));
    assert.equal(
      act?.eli,
      "http://data.europa.eu/eli/reg/2000/999/oj",
      "the boundary CELEX kept its last row",
    );
  });

  it("a read that ends early without an error (a page cut short) is refused against Cellar's count", async () => {
    answer = sparqlStandIn(ROWS, "celex", { cut: INDEX_PAGE_KEYS - 1 });
    await assert.rejects(buildEuIndex(ctx), /index in place is kept: read 999 of the 1500 .*short, refused/);
    assert.equal(await indexed(), ACTS);
    assert.match((await readGovFetch(ctx.store, EU_SKU)).lastError ?? "", /short, refused/);
  });

  it("a maintenance page served with 200 fails the build and keeps the index", async () => {
    answer = () => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html>maintenance</html>",
    });
    await assert.rejects(buildEuIndex(ctx), /maintenance page/);
    assert.equal(await indexed(), ACTS);
  });

  it("a complete read much smaller than the index in place is refused too", async () => {
    answer = sparqlStandIn(ROWS.slice(0, 10), "celex");
    await assert.rejects(buildEuIndex(ctx), /10 acts against 1500 indexed: refused/);
    assert.equal(await indexed(), ACTS);
  });
});
