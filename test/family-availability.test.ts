// A family without the live configuration it needs is disabled, never a crash: live mode with the placeholder
// contact starts, warns once, answers EDGAR's paid routes 503 not_configured before any payment is asked, keeps
// answering its free status with the reason, runs none of its warmers or jobs, and leaves ECB untouched.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import type { Family } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { ECB_RECORDINGS_DIR, ecbFamily } from "../src/products/ecb/index.ts";
import { edgarFamily } from "../src/products/edgar/index.ts";
import { llmFamily } from "../src/products/llm/index.ts";
import { usptoFamily } from "../src/products/uspto/index.ts";
import { type Service, startService } from "../src/service.ts";
import { type LoopbackUpstream, startLoopbackUpstream } from "./family-harness.ts";
import { testDatabase } from "./test-store.ts";

const recordedCsv = fs.readFileSync(path.join(ECB_RECORDINGS_DIR, "exr-daily.csv"), "utf8");

describe("live mode with the placeholder contact (operator@example.invalid)", () => {
  let sec: LoopbackUpstream;
  let ecb: LoopbackUpstream;
  let service: Service;
  let edgar: Family;
  const logLines: Array<Record<string, unknown>> = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-availability-"));
  const database = testDatabase();

  before(async () => {
    sec = await startLoopbackUpstream(() => ({ status: 200, body: "{}" }));
    ecb = await startLoopbackUpstream(() => ({
      status: 200,
      headers: { "content-type": "text/csv" },
      body: recordedCsv,
    }));
    const config = loadConfig({
      ...database.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      UPSTREAMS: "live",
      SEC_DATA_BASE_URL: sec.baseUrl,
      SEC_WWW_BASE_URL: sec.baseUrl,
      ECB_BASE_URL: ecb.baseUrl,
    });
    edgar = edgarFamily(config);
    const log = pino(
      { level: "info" },
      { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    service = await startService(config, { log, worker: false, families: [edgar, ecbFamily(config)] });
    await service.paymentsReady;
  });
  after(async () => {
    await service.close();
    await sec.close();
    await ecb.close();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts and warns once, naming the family, the reason and the fix", () => {
    const warnings = logLines.filter((l) => l.level === 40 && String(l.msg).startsWith("edgar disabled"));
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0]?.msg), /placeholder/);
    assert.match(String(warnings[0]?.fix), /SEC_USER_AGENT/);
    assert.ok(!logLines.some((l) => String(l.msg).startsWith("ecb disabled")));
  });

  it("answers EDGAR's paid routes 503 not_configured, never a 402, whatever the buyer sends", async () => {
    for (const [url, headers] of [
      [`${service.url}/v1/edgar/company?ticker=AAPL`, {}],
      [`${service.url}/v1/edgar/company?ticker=AAPL&sample=1`, {}],
      [`${service.url}/v1/edgar/company?ticker=AAPL`, { "payment-signature": "e30=" }],
    ] as const) {
      const response = await fetch(url, { headers });
      assert.equal(response.status, 503, url);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.error, "not_configured");
      assert.equal(body.charged, false);
      assert.equal(body.family, "edgar");
      assert.match(String(body.reason), /operator@example\.invalid/);
      assert.match(String(body.fix), /SEC_USER_AGENT/);
    }
    assert.equal(sec.requests.length, 0, "nothing reached SEC");
  });

  it("the free status route still answers and says why; /health lists the disabled family", async () => {
    const status = await fetch(`${service.url}/v1/edgar/status`);
    assert.equal(status.status, 200);
    const body = (await status.json()) as { notConfigured?: { family: string; fix: string } };
    assert.equal(body.notConfigured?.family, "edgar");
    assert.match(body.notConfigured?.fix ?? "", /SEC_USER_AGENT/);
    const health = (await (await fetch(`${service.url}/health`)).json()) as {
      disabledFamilies?: Array<{ family: string }>;
    };
    assert.deepEqual(
      health.disabledFamilies?.map((d) => d.family),
      ["edgar"],
    );
  });

  it("discovery: the catalog names the disabled family; /.well-known/x402 offers only what can be bought", async () => {
    const catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as {
      disabledFamilies?: Array<{ family: string; fix: string }>;
    };
    assert.deepEqual(
      catalog.disabledFamilies?.map((d) => d.family),
      ["edgar"],
    );
    const wellKnown = (await (await fetch(`${service.url}/.well-known/x402`)).json()) as {
      items: Array<{ sku: string }>;
    };
    const skus = wellKnown.items.map((i) => i.sku);
    assert.ok(skus.includes("macro.ecb.fx"));
    assert.ok(!skus.some((sku) => sku.startsWith("edgar.")), skus.join(", "));
  });

  it("the worker schedules ECB's warmer but none of EDGAR's, and leaves EDGAR's jobs queued", async () => {
    const edgarQueue = Object.keys(edgar.jobs ?? {})[0];
    assert.ok(edgarQueue, "EDGAR declares job queues");
    await service.store.jobs.enqueue(edgarQueue, "probe", {});
    const enqueued = await service.worker.scheduleWarmers();
    assert.ok(enqueued.includes("ecb.fx"));
    for (const warmer of edgar.warmers ?? []) assert.ok(!enqueued.includes(warmer.name), warmer.name);
    await service.worker.drain();
    assert.ok(ecb.requests.length > 0, "ECB was asked");
    assert.equal(sec.requests.length, 0, "SEC was not");
    assert.equal((await service.store.jobs.get(edgarQueue, "probe"))?.state, "queued");
  });

  it("other families are unaffected: ECB's paid route asks for payment", async () => {
    const response = await fetch(`${service.url}/v1/macro/ecb/fx?pair=USD`);
    assert.equal(response.status, 402);
    assert.ok(response.headers.get("payment-required"));
  });
});

describe("which families declare themselves unavailable", () => {
  it("EDGAR: only live mode with a placeholder contact; a declared SEC_USER_AGENT or replay mode is fine", () => {
    assert.ok(edgarFamily(loadConfig({ UPSTREAMS: "live" })).unavailable);
    assert.equal(edgarFamily(loadConfig({ UPSTREAMS: "replay" })).unavailable, undefined);
    const declared = loadConfig({ UPSTREAMS: "live", SEC_USER_AGENT: "Acme Data ops@acme.com" });
    assert.equal(edgarFamily(declared).unavailable, undefined);
    const contact = loadConfig({ UPSTREAMS: "live", CONTACT_EMAIL: "ops@acme.com" });
    assert.equal(edgarFamily(contact).unavailable, undefined);
  });

  it("LLM: live on OpenAI's API without LLM_API_KEY; a key, another base URL or replay is fine", () => {
    assert.match(llmFamily(loadConfig({ UPSTREAMS: "live" })).unavailable?.reason ?? "", /LLM_API_KEY/);
    assert.equal(llmFamily(loadConfig({ UPSTREAMS: "live", LLM_API_KEY: "sk-x" })).unavailable, undefined);
    const local = loadConfig({ UPSTREAMS: "live", LLM_BASE_URL: "http://127.0.0.1:11434/v1" });
    assert.equal(llmFamily(local).unavailable, undefined);
    assert.equal(llmFamily(loadConfig({ UPSTREAMS: "replay" })).unavailable, undefined);
  });

  it("USPTO: live without USPTO_API_KEY, saying so (and that a PatentsView key cannot stand in); a key or replay is fine", () => {
    const without = usptoFamily(loadConfig({ UPSTREAMS: "live" })).unavailable;
    assert.match(without?.reason ?? "", /USPTO_API_KEY is not set/);
    assert.match(without?.fix ?? "", /Set USPTO_API_KEY/);
    assert.equal(without?.docs, "https://data.uspto.gov/apis/getting-started");
    const legacy = usptoFamily(
      loadConfig({ UPSTREAMS: "live", PATENTSVIEW_API_KEY: "old-key-123" }),
    ).unavailable;
    assert.match(
      legacy?.reason ?? "",
      /PATENTSVIEW_API_KEY is set, but .* does not accept PatentSearch keys/,
    );
    const keyed = loadConfig({ UPSTREAMS: "live", USPTO_API_KEY: "odp-key-12345678" });
    assert.equal(usptoFamily(keyed).unavailable, undefined);
    assert.equal(usptoFamily(loadConfig({ UPSTREAMS: "replay" })).unavailable, undefined);
  });
});
