// Unpaid requests per client through the HTTP API: a burst is refused with 429 and Retry-After, paid requests
// are never refused, and two nodes on one store (PostgreSQL in the PostgreSQL run, else one SQLite file)
// refuse a client by the cluster's count.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { newBuyer, signedPaymentHeader, startTestService } from "../../test/harness.ts";
import { testFamily } from "../../test/test-family.ts";
import { type TestDatabase, testDatabase } from "../../test/test-store.ts";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { llmFamily } from "../products/llm/index.ts";
import { type Service, startService } from "../service.ts";
import { creditWallet } from "../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../x402/shared/networks.ts";
import { WINDOW_MS } from "./rate-limiter.ts";

const ITEM = "/v1/test/item?mode=ok";

let database: TestDatabase;
let dir: string;
let a: Service;
let b: Service;

async function node(name: string, env: Record<string, string>): Promise<Service> {
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, "shared.sqlite")}`,
    ...database.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: fs.mkdtempSync(path.join(dir, `${name}-`)),
    UPSTREAMS: "replay",
    LOG_LEVEL: "silent",
    RUN_WARMERS: "false",
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    ...env,
  });
  const service = await startService(config, { log: createLogger("silent"), families: [testFamily] });
  await service.paymentsReady;
  return service;
}

before(async () => {
  database = testDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-rate-limits-"));
  // Behind a proxy that names the client (x-forwarded-for); without the header, the socket's address.
  a = await node("a", { RATE_LIMIT_PER_MIN: "6", TRUST_PROXY: "true" });
  b = await node("b", { RATE_LIMIT_PER_MIN: "6", TRUST_PROXY: "true" });
});
after(async () => {
  await a.close();
  await b.close();
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Counts start again each minute: a test that would straddle the change waits for it first. */
async function clearOfWindowEnd(): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

async function statuses(service: Service, count: number, query = ITEM): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${service.url}${query}`);
    await response.arrayBuffer();
    answers.push(response.status);
  }
  return answers;
}

describe("one node", () => {
  test("a burst over the limit gets 429 with Retry-After; a paid request still goes through", async () => {
    await clearOfWindowEnd();
    const buyer = newBuyer();
    await creditWallet(a.store, NETWORKS.base, buyer.address, "1");
    // Signing asks for the 402 once: the first of the six unpaid requests.
    const header = await signedPaymentHeader(buyer, `${a.url}${ITEM}`);
    assert.deepEqual(await statuses(a, 5), [402, 402, 402, 402, 402]);
    const refused = await fetch(`${a.url}/v1/test/item?mode=missing`);
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.error, "rate_limited");
    assert.equal(body.charged, false);
    assert.equal(body.retryAfterSec, retryAfter);
    assert.match(String(body.message), /6 a minute/);

    const paid = await fetch(`${a.url}${ITEM}`, { headers: { "payment-signature": header } });
    assert.equal(paid.status, 200, await paid.clone().text());
    assert.ok(paid.headers.get("payment-response"));
    assert.equal((await statuses(a, 1, "/v1/test/item?mode=ok&sample=1"))[0], 429, "samples count too");
  });
});

describe("two nodes on one store", () => {
  test("requests split across the nodes are limited by the cluster's total", async () => {
    const send = async (service: Service, client = "203.0.113.7") =>
      (await fetch(`${service.url}${ITEM}`, { headers: { "x-forwarded-for": client } })).status;
    await clearOfWindowEnd();
    for (let i = 0; i < 4; i++) assert.equal(await send(a), 402);
    await a.rateLimits.sync();
    // B sees the client for the first time: its own count allows, the cluster's (4 + 2) stops it at two.
    assert.deepEqual([await send(b), await send(b)], [402, 402]);
    await b.rateLimits.sync();
    assert.equal(await send(b), 429);
    // A has no new requests of the client to add, and still learns the total from the store.
    await a.rateLimits.sync();
    assert.equal(await send(a), 429);
    assert.equal(await send(a, "203.0.113.8"), 402, "another client is not affected");
  });
});

describe("routes whose 402 costs work", () => {
  test("the chat route is held to RATE_LIMIT_EXPENSIVE_PER_MIN, refused before its body is parsed", async (t) => {
    const llm = await startTestService({ RATE_LIMIT_EXPENSIVE_PER_MIN: "2" }, [
      llmFamily(loadConfig({ LOG_LEVEL: "silent", UPSTREAMS: "replay" })),
    ]);
    t.after(() => llm.stop());
    await clearOfWindowEnd();
    const chat = (body: string) =>
      fetch(`${llm.url}/v1/llm/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    const hello = JSON.stringify({ messages: [{ role: "user", content: "Hello" }] });
    assert.deepEqual([(await chat(hello)).status, (await chat(hello)).status], [402, 402]);
    // Malformed JSON would be a 400: the limit answers first.
    const refused = await chat("{not json");
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.error, "rate_limited");
    assert.match(String(body.message), /2 a minute to routes whose 402 takes work/);
    assert.equal(
      (await fetch(`${llm.url}/v1/llm/models`)).status,
      200,
      "other routes keep the general limit",
    );
  });
});
