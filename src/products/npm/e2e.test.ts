// End to end: a real x402 buyer pays /v1/registry/npm through the local facilitator, with the registry and
// the download-counts API played by loopback servers answering from the recordings; then the free routes,
// bad input before payment, and the free sample offline (UPSTREAMS=replay).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { FieldDictionaryAnswer } from "../../catalog/field-dictionary.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { NpmCardAnswer } from "./card.ts";
import { type LoopbackUpstream, startRecordedUpstream } from "./harness.test-helper.ts";
import { NPM_RECORDINGS_DIR, npmFamily } from "./index.ts";
import { NPM_CACHE, packumentKey } from "./lookup.ts";
import { NpmCoverageAnswer, NpmStatusAnswer } from "./status.ts";

describe("paid /v1/registry/npm end to end", () => {
  let registry: LoopbackUpstream;
  let downloads: LoopbackUpstream;
  let service: TestService;
  const conditional: string[] = [];
  const buyer = newBuyer();

  before(async () => {
    registry = await startRecordedUpstream(NPM_RECORDINGS_DIR, "npm-registry", (url, request) => {
      if (url.pathname !== "/express") return undefined;
      const etag = request.headers["if-none-match"];
      const form = String(request.headers.accept).startsWith("application/vnd.npm.install-v1+json")
        ? "abbreviated"
        : "full";
      conditional.push(`${form} ${typeof etag === "string" ? etag : "-"}`);
      return etag === 'W/"sample-etag-express"' ? { status: 304, body: "" } : undefined;
    });
    downloads = await startRecordedUpstream(NPM_RECORDINGS_DIR, "npm-downloads");
    const env = {
      UPSTREAMS: "live",
      NPM_REGISTRY_BASE_URL: registry.baseUrl,
      NPM_DOWNLOADS_BASE_URL: downloads.baseUrl,
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [npmFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await registry.close();
    await downloads.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (params: Record<string, string>) =>
    `${service.url}/v1/registry/npm?${new URLSearchParams(params)}`;

  it("asks for payment first and fetches nothing before", async () => {
    const response = await fetch(url({ name: "express" }));
    assert.equal(response.status, 402);
    const headerBytes = [...response.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    assert.ok(headerBytes < 12_000, `${headerBytes} bytes of headers`);
    const body = (await response.json()) as { freeSample?: string };
    assert.match(body.freeSample ?? "", /\/v1\/registry\/npm\?name=express&sample=1$/);
    assert.equal(registry.requests.length, 0);
  });

  it("a package not cached is fetched live, answered and charged 0.01", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ name: "express" }));
    assert.equal(response.status, 200);
    assert.ok(response.headers.get("payment-response"));
    const card = NpmCardAnswer.parse(await response.json());
    assert.equal(card.version, "5.1.0");
    assert.equal(card.requested, "latest");
    assert.equal(card.license, "MIT");
    assert.equal(card.maintainersCount, 3);
    assert.equal(card.publishTimesPending, false);
    assert.equal(card.publishedAt, "2025-03-31T14:00:00.000Z");
    assert.equal(card.weeklyDownloads?.downloads, 41234567);
    assert.equal(card.dist.provenance, true);
    assert.equal(card.sourceUrl, `${registry.baseUrl}/express`);
    assert.deepEqual(card.sources, [
      `${registry.baseUrl}/express`,
      `${registry.baseUrl}/express/5.1.0`,
      `${downloads.baseUrl}/downloads/point/last-week/express`,
    ]);
    assert.match(card.licence.url, /open-source-terms/);
    assert.doesNotMatch(card.notice, /RECORDED SAMPLE/);
    assert.equal(before - (await balance()), 10_000n);
    const rows = await service.store.ledger.list();
    assert.equal(rows.at(-1)?.sku, "registry.npm");
  });

  it("a dist-tag is served from the cache; an expired packument is revalidated with its ETag (304)", async () => {
    const card = NpmCardAnswer.parse(
      await (await payingFetch(buyer)(url({ name: "express", version: "latest-4" }))).json(),
    );
    assert.equal(card.version, "4.21.2");
    assert.equal(registry.requests.filter((u) => u.pathname === "/express").length, 2);
    assert.ok(
      registry.requests.some((u) => u.pathname === "/express/4.21.2"),
      "the version's own document",
    );
    const doc = await service.store.cache.get(NPM_CACHE, packumentKey("express"));
    assert.ok(doc);
    await service.store.cache.put(NPM_CACHE, packumentKey("express"), {
      ...doc,
      expiresAt: "2000-01-01T00:00:00.000Z",
    });
    const again = await payingFetch(buyer)(url({ name: "express", version: "5.0.0-beta.3" }));
    assert.equal(again.status, 200);
    const beta = NpmCardAnswer.parse(await again.json());
    assert.match(beta.deprecated ?? "", /use express@5\.1\.0/);
    assert.deepEqual(conditional.slice(0, 2).sort(), ["abbreviated -", "full -"]);
    assert.deepEqual(conditional.slice(2), ['abbreviated W/"sample-etag-express"']);
    const refreshed = await service.store.cache.get(NPM_CACHE, packumentKey("express"));
    assert.ok(Date.parse(refreshed?.expiresAt ?? "") > Date.now());
  });

  it("a scoped package: slash encoded for the registry, no download count is null", async () => {
    const card = NpmCardAnswer.parse(
      await (await payingFetch(buyer)(url({ name: "@sample-scope/tiny" }))).json(),
    );
    assert.equal(card.name, "@sample-scope/tiny");
    assert.equal(card.weeklyDownloads, null);
    assert.equal(card.hasInstallScript, true);
    assert.ok(registry.requests.some((u) => u.pathname === "/@sample-scope%2Ftiny"));
  });

  it("unpublished, unknown packages and unknown versions are 404, never charged", async () => {
    const before = await balance();
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { name: "babel-plugin-autocss" },
        /was unpublished from the npm registry on 2022-01-14T12:34:23\.941Z/,
      ],
      [{ name: "sample-no-such-package" }, /no package sample-no-such-package/],
      [{ name: "express", version: "9.9.9" }, /express@9\.9\.9 is not published/],
      [{ name: "express", version: "canary" }, /no dist-tag "canary"/],
    ];
    for (const [params, message] of cases) {
      const response = await payingFetch(buyer)(url(params));
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 404, JSON.stringify(body));
      assert.equal(body.charged, false);
      assert.match(String(body.message), message);
      assert.equal(response.headers.get("payment-response"), null);
    }
    assert.equal(await balance(), before);
  });

  it("the registry failing on a package not cached: 503, nothing charged", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url({ name: "sample-registry-down" }));
    assert.equal(response.status, 503);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.error, "upstream_unavailable");
    assert.equal(body.charged, false);
    assert.equal(typeof body.retryAfterSec, "number");
    assert.equal(await balance(), before);
  });

  it("bad input is a 400 naming the parameter, before payment", async () => {
    const cases: Array<[string, string]> = [
      ["name=", "name"],
      ["name=.hidden", "name"],
      ["name=%40scope", "name"],
      ["name=a%2Fb", "name"],
      ["name=hello%20world", "name"],
      ["name=express&version=%5E4.0.0", "version"],
      ["name=express&version=4.x", "version"],
      ["name=express&tag=next", "tag"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${service.url}/v1/registry/npm?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, parameter, query);
      assert.equal(response.headers.get("payment-required"), null);
    }
  });

  it("status, coverage and schema are free", async () => {
    const status = NpmStatusAnswer.parse(await (await fetch(`${service.url}/v1/registry/npm/status`)).json());
    assert.equal(status.cache.packages, 2);
    assert.equal(status.cache.missing, 2);
    assert.equal(status.mode, "live");
    assert.match(status.upstreamFetches.lastError ?? "", /HTTP 503/);
    assert.ok(status.upstreamFetches.lastOkAt);
    const coverage = NpmCoverageAnswer.parse(
      await (await fetch(`${service.url}/v1/registry/npm/coverage`)).json(),
    );
    assert.equal(coverage.totalCount, 4);
    assert.ok(coverage.packages.some((p) => p.name === "express" && p.state === "package" && p.warm));
    const schema = FieldDictionaryAnswer.parse(
      await (await fetch(`${service.url}/v1/registry/npm/schema`)).json(),
    );
    assert.deepEqual(
      schema.products.map((p) => p.path),
      ["/v1/registry/npm"],
    );
    const fields = new Map(schema.products[0]?.fields.map((f) => [f.path, f]));
    assert.equal(fields.get("weeklyDownloads.downloads")?.type, "integer");
    assert.equal(fields.get("weeklyDownloads")?.nullable, true);
    assert.equal(fields.get("dependencies{}")?.type, "string");
    assert.equal(fields.get("fetchedAt")?.required, true);
  });
});

describe("npm offline (UPSTREAMS=replay)", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({}, [npmFamily(loadConfig({ UPSTREAMS: "replay" }))]);
  });
  after(() => service.stop());

  it("the free sample answers from the recordings and says it is a sample", async () => {
    const response = await fetch(`${service.url}/v1/registry/npm?name=express&sample=1`);
    assert.equal(response.status, 200);
    const card = NpmCardAnswer.parse(await response.json());
    assert.equal(card.version, "5.1.0");
    assert.match(card.notice, /^RECORDED SAMPLE, NOT LIVE DATA/);
  });
});
