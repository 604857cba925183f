// A 40 MB packument (vite's real version document from a registry mirror, repeated as 2,000 versions with a
// 16 KB readme each, the way big packuments grow) served by a local stand-in that sends the full document at
// 8 MB/s, as a CDN might: the paid card must come back within the buyer's budget, with publish times pending,
// and the next call must have them once the full document has landed in the cache.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { CARD_BUDGET_MS, NpmCardAnswer } from "./card.ts";
import { NPM_RECORDINGS_DIR, npmFamily } from "./index.ts";

const VERSIONS = 2000;
const README_BYTES = 16_400;
const FULL_BYTES_PER_SEC = 8_000_000;
/** The members of a version the abbreviated packument keeps (npm/registry package-metadata.md). */
const ABBREVIATED = [
  "name",
  "version",
  "deprecated",
  "dependencies",
  "optionalDependencies",
  "devDependencies",
  "bundleDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "bin",
  "directories",
  "engines",
  "dist",
  "_hasShrinkwrap",
  "hasInstallScript",
];

function buildDocuments() {
  const recording = JSON.parse(
    fs.readFileSync(path.join(NPM_RECORDINGS_DIR, "mirror-vite-8.3.8.recording.json"), "utf8"),
  );
  const template = JSON.parse(recording.response.body) as Record<string, unknown>;
  const readme = `# vite\n\n${"Native-ESM powered web dev build tool. ".repeat(README_BYTES / 40)}`;
  const versions: Record<string, Record<string, unknown>> = {};
  const abbreviated: Record<string, Record<string, unknown>> = {};
  const time: Record<string, string> = { created: "2020-04-21T05:05:08.000Z" };
  for (let i = 0; i < VERSIONS; i++) {
    const version = `${Math.floor(i / 100)}.${Math.floor(i / 10) % 10}.${i % 10}`;
    const doc: Record<string, unknown> = { ...template, version, _id: `vite@${version}`, readme };
    versions[version] = doc;
    abbreviated[version] = Object.fromEntries(ABBREVIATED.filter((k) => k in doc).map((k) => [k, doc[k]]));
    time[version] = new Date(Date.UTC(2020, 4, 1) + i * 86_400_000).toISOString();
  }
  const latest = Object.keys(versions).at(-1) as string;
  time.modified = time[latest] as string;
  const distTags = { latest };
  const full = JSON.stringify({ _id: "vite", name: "vite", "dist-tags": distTags, versions, time, readme });
  const corgi = JSON.stringify({
    name: "vite",
    modified: time.modified,
    "dist-tags": distTags,
    versions: abbreviated,
  });
  return {
    full: Buffer.from(full),
    corgi: Buffer.from(corgi),
    manifest: JSON.stringify(versions[latest]),
    latest,
  };
}

describe("a 40 MB packument: the card within the buyer's budget", () => {
  const docs = buildDocuments();
  let registry: http.Server;
  let base: string;
  let service: TestService;
  const buyer = newBuyer();
  const fullSent: number[] = [];
  const fullAsked: number[] = [];

  before(async () => {
    registry = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (
        url.pathname === "/vite" &&
        String(req.headers.accept).startsWith("application/vnd.npm.install-v1")
      ) {
        res.writeHead(200, { "content-type": "application/vnd.npm.install-v1+json" });
        res.end(docs.corgi);
      } else if (url.pathname === "/vite") {
        // The full document, at FULL_BYTES_PER_SEC.
        fullAsked.push(Date.now());
        res.writeHead(200, { "content-type": "application/json", "content-length": docs.full.length });
        const chunk = FULL_BYTES_PER_SEC / 20;
        let offset = 0;
        const timer = setInterval(() => {
          res.write(docs.full.subarray(offset, offset + chunk));
          offset += chunk;
          if (offset >= docs.full.length) {
            clearInterval(timer);
            fullSent.push(Date.now());
            res.end();
          }
        }, 50);
        res.on("close", () => clearInterval(timer));
      } else if (url.pathname === `/vite/${docs.latest}`) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(docs.manifest);
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"error":"Not found"}');
      }
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
    const env = {
      UPSTREAMS: "live",
      NPM_REGISTRY_BASE_URL: base,
      NPM_DOWNLOADS_BASE_URL: base,
      NPM_WARM_PACKAGES: "none",
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [npmFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    registry.closeAllConnections();
    await new Promise((resolve) => registry.close(resolve));
  });

  it("is 40 MB in full; the abbreviated packument the card reads is a fraction of it", (t) => {
    assert.ok(docs.full.length >= 40_000_000, `${docs.full.length} bytes`);
    t.diagnostic(
      `full packument ${(docs.full.length / 1e6).toFixed(1)} MB, abbreviated ${(docs.corgi.length / 1e6).toFixed(2)} MB`,
    );
    const started = performance.now();
    JSON.parse(docs.full.toString("utf8"));
    t.diagnostic(`JSON.parse of the full packument alone: ${Math.round(performance.now() - started)} ms`);
  });

  it("the first card answers within the budget, publish times pending; the next call has them", async (t) => {
    const url = `${service.url}/v1/registry/npm?name=vite`;
    const started = performance.now();
    const response = await payingFetch(buyer)(url);
    const firstMs = performance.now() - started;
    assert.equal(response.status, 200);
    const card = NpmCardAnswer.parse(await response.json());
    t.diagnostic(`first card (nothing cached): ${Math.round(firstMs)} ms, budget ${CARD_BUDGET_MS} ms`);
    assert.ok(firstMs < CARD_BUDGET_MS, `${firstMs} ms`);
    assert.equal(card.version, docs.latest);
    assert.equal(card.versionsCount, VERSIONS);
    assert.equal(card.license, "MIT");
    assert.equal(card.publishTimesPending, true);
    assert.equal(card.publishedAt, null);
    // The full document (40 MB at 8 MB/s: about 5 s) lands in the cache in the background.
    const fullStarted = performance.now();
    while (fullSent.length === 0 && performance.now() - fullStarted < 20_000) await sleep(100);
    await sleep(1500);
    t.diagnostic(
      `the full packument took ${(fullSent[0] ?? 0) - (fullAsked[0] ?? 0)} ms to arrive (a buyer waiting for it would have waited that plus its parse)`,
    );
    const second = performance.now();
    const again = NpmCardAnswer.parse(await (await payingFetch(buyer)(url)).json());
    t.diagnostic(`second card (from the cache): ${Math.round(performance.now() - second)} ms`);
    assert.equal(again.publishTimesPending, false);
    assert.equal(again.createdAt, "2020-04-21T05:05:08.000Z");
    assert.ok(again.publishedAt);
  });
});
