// The index warmer against a loopback Fedlex answering the keyset queries over rows in memory: rows repeated by
// 150 named graphs count once, every act is read whole across pages, and a read short of Fedlex's own count is
// refused with the index kept.
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
import { chLegislation } from "./index.ts";
import type { ChSearchItem } from "./normalise.ts";
import { INDEX_PAGE_KEYS } from "./upstream.ts";
import { buildChIndex, CH_INDEX, CH_SKU } from "./warmer.ts";

const ACTS = INDEX_PAGE_KEYS + 20;
const LANG = "http://publications.europa.eu/resource/authority/language/";
const literal = (value: string) => ({ type: "literal", value });

/** One act: a German, French and Italian row (the index query's shape), its SR number 100.<n>. */
function rowsOf(n: number): SparqlBinding[] {
  const ca = { type: "uri", value: `https://fedlex.data.admin.ch/eli/cc/2000/${String(n).padStart(4, "0")}` };
  return [
    ["DEU", `Verordnung Nummer ${n}`],
    ["FRA", `Ordonnance numéro ${n}`],
    ["ITA", `Ordinanza numero ${n}`],
  ].map(([lang, title]) => ({
    ca,
    lang: literal(lang as string),
    title: literal(title as string),
    sr: literal(`100.${n}`),
    status: { type: "uri", value: "https://fedlex.data.admin.ch/vocabulary/enforcement-status/0" },
    langUri: { type: "uri", value: `${LANG}${lang}` },
  }));
}
const ROWS = Array.from({ length: ACTS }, (_, n) => rowsOf(n)).flat();

let answer: (url: URL) => { status: number; headers?: Record<string, string>; body: string };
let upstream: LoopbackUpstream;
let ctx: FamilyTestContext;

before(async () => {
  upstream = await startLoopbackUpstream((url) => answer(url));
  ctx = await openFamilyContext(legislationFamily("gov-legislation-ch", [chLegislation]), {
    UPSTREAMS: "live",
    GOV_CH_FEDLEX_BASE_URL: upstream.baseUrl,
  });
});
after(async () => {
  await ctx.close();
  await upstream.close();
});

describe("gov.ch.legislation.index against a loopback Fedlex", () => {
  it("asks DISTINCT rows (150 named graphs would repeat each), every act read whole, checked against the count", async () => {
    answer = sparqlStandIn(ROWS, "ca", { graphs: 150 });
    const counts = await buildChIndex(ctx);
    assert.deepEqual(counts, { pages: 2, acts: ACTS, upstreamCount: ACTS, indexed: ACTS });
    const sent = upstream.requests.map((u) => u.searchParams.get("query") ?? "");
    assert.match(sent[0] ?? "", /^SELECT DISTINCT \?ca /m);
    assert.match(sent[0] ?? "", new RegExp(`ORDER BY STR\\(\\?ca\\) LIMIT ${INDEX_PAGE_KEYS} `));
    assert.doesNotMatch(sent.join("\n"), /OFFSET/);
    const found = await GovTitleIndex.of(ctx.store).search<ChSearchItem>(CH_INDEX, "Ordonnance numéro 7", 3);
    assert.deepEqual(found?.items[0]?.aliases, ["Ordonnance numéro 7", "Ordinanza numero 7"]);
  });

  it("a read that stops short without an error is refused: the index and its acts are kept", async () => {
    answer = sparqlStandIn(ROWS, "ca", { cut: 100 });
    await assert.rejects(buildChIndex(ctx), /index in place is kept: read 100 of the 520 .*short, refused/);
    assert.equal(await GovTitleIndex.of(ctx.store).count(CH_INDEX), ACTS);
    assert.match((await readGovFetch(ctx.store, CH_SKU)).lastError ?? "", /Fedlex index not rebuilt/);
  });
});
