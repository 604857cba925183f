// The legislation preflight against one loopback stand-in for every upstream: one check each, the request its
// adapter makes (kept small), and a maintenance page served with 200 reported as a warning.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LoopbackUpstream, startLoopbackUpstream } from "../../../../test/family-harness.ts";
import { loadConfig } from "../../../config.ts";
import { legislationPreflight } from "./preflight.ts";

const UPSTREAMS = [
  "gov-at-ris",
  "gov-au-frl",
  "gov-ca-justice-laws",
  "gov-ch-fedlex",
  "gov-de-gii",
  "gov-de-neuris",
  "gov-eu-cellar",
  "gov-gb-legislation",
  "gov-jp-egov",
  "gov-pl-sejm-eli",
  "gov-us-ecfr",
];
const variable = (name: string) => `${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BASE_URL`;

let upstream: LoopbackUpstream;
let answer: (url: URL) => { status: number; headers: Record<string, string>; body: string };
/** A body of the kind each path's adapter reads. */
const fitting = (url: URL) =>
  /\.xml$|data\.feed$/.test(url.pathname)
    ? { status: 200, headers: { "content-type": "application/xml" }, body: "<feed/>" }
    : { status: 200, headers: { "content-type": "application/json" }, body: "{}" };

before(async () => {
  upstream = await startLoopbackUpstream((url) => answer(url));
});
after(() => upstream.close());

const context = () => ({
  config: loadConfig({
    LOG_LEVEL: "silent",
    ...Object.fromEntries(UPSTREAMS.map((name) => [variable(name), upstream.baseUrl])),
  }),
  userAgent: "paycall-test",
  timeoutMs: 2000,
});

describe("legislation preflight", () => {
  it("one check per upstream, each one small request of the kind its adapter makes", async () => {
    answer = fitting;
    const checks = legislationPreflight();
    assert.deepEqual(checks.map((c) => c.upstream).sort(), UPSTREAMS);
    const verdicts = await Promise.all(checks.map((c) => c.run(context())));
    assert.deepEqual(
      verdicts.map((v) => v.state),
      UPSTREAMS.map(() => "ok"),
    );
    const asked = (path: string) => upstream.requests.find((u) => u.pathname === path);
    assert.equal(asked("/search/data.feed")?.searchParams.get("results-count"), "1");
    assert.match(asked("/sparqlendpoint")?.searchParams.get("query") ?? "", /LIMIT 1$/);
    assert.equal(asked("/sparql")?.searchParams.get("format"), "application/sparql-results+json");
    assert.equal(asked("/acts/search")?.searchParams.get("limit"), "1");
  });

  it("a maintenance page served with 200 is a warning; an upstream failing is a blocker", async () => {
    const cellar = legislationPreflight().find((c) => c.upstream === "gov-eu-cellar");
    answer = () => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html>maintenance</html>",
    });
    const maintenance = await cellar?.run(context());
    assert.equal(maintenance?.state, "warn");
    assert.match(maintenance?.detail ?? "", /text\/html \(maintenance page\?\)/);
    answer = () => ({ status: 404, headers: { "content-type": "text/html" }, body: "gone" });
    assert.equal((await cellar?.run(context()))?.state, "blocker");
  });
});
