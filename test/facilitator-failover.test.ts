// Two facilitators, buyers paying, a fault injected into the first: payments move to the second within the
// circuit's threshold, nothing is charged twice or delivered unpaid, and the first is taken back once it
// recovers. A settlement moves only when its connection was refused; one that timed out stays where it went.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  decodeBase64Json,
  newBuyer,
  payingFetch,
  startListeningService,
  type TestService,
} from "./harness.ts";
import { STUB_VALID, type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { STUB_PAY_TO } from "./stubbed-service.ts";
import { testFamily } from "./test-family.ts";

const ITEM = "/v1/test/item?mode=ok";
const HEALTH = {
  // Ends a hanging verify soon, yet leaves a loaded machine time to answer a healthy one (300 ms did not).
  FACILITATOR_TIMEOUT_MS: "1500",
  FACILITATOR_FAILURE_THRESHOLD: "2",
  FACILITATOR_OPEN_MS: "1000",
  FACILITATOR_SUPPORTED_REFRESH_MS: "300",
};

interface Pair {
  a: StubFacilitator;
  b: StubFacilitator;
  service: TestService;
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});
after(() => undefined);

async function startPair(env: Record<string, string> = {}): Promise<Pair> {
  const a = await startStubFacilitator();
  const b = await startStubFacilitator();
  running.push(
    () => a.close(),
    () => b.close(),
  );
  const service = await startListeningService(
    {
      FACILITATOR_URL: `${a.url},${b.url}`,
      PAY_TO_EVM: STUB_PAY_TO,
      WORKER_POLL_MS: "60000",
      ...HEALTH,
      ...env,
    },
    [testFamily],
  );
  running.push(() => service.stop());
  return { a, b, service };
}

async function buy(service: TestService) {
  const response = await payingFetch(newBuyer())(`${service.url}${ITEM}`);
  return { response, body: (await response.json()) as Record<string, unknown> };
}

async function buyMany(service: TestService, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await buy(service)).response.status);
  return statuses;
}

async function ledger(service: TestService): Promise<Record<string, number>> {
  const states: Record<string, number> = {};
  for (const row of await service.store.ledger.list()) states[row.state] = (states[row.state] ?? 0) + 1;
  return states;
}

/** Paid answers delivered = settlements the stubs made = settled rows, none twice. */
async function assertPaidOnce(pair: Pair, delivered: number) {
  assert.equal(pair.a.calls.settle + pair.b.calls.settle, delivered, "one settlement per delivered answer");
  assert.equal((await ledger(pair.service)).settled ?? 0, delivered, "one settled row per delivered answer");
}

async function circuit(service: TestService, label: string): Promise<string | undefined> {
  return service
    .paywall()
    ?.facilitators?.status()
    .facilitators.find((f) => f.facilitator === label)?.state;
}

const host = (stub: StubFacilitator) => new URL(stub.url).host;

async function until(condition: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

const FAULTS = {
  refused: async (a: StubFacilitator) => a.refuse(),
  hanging: async (a: StubFacilitator) => {
    a.verify = { kind: "hang" };
  },
  "5xx": async (a: StubFacilitator) => {
    a.verify = { kind: "json", status: 503, body: { error: "down" } };
  },
  "malformed JSON": async (a: StubFacilitator) => {
    a.verify = { kind: "raw", status: 200, text: '{"isValid": tru' };
  },
  "isValid missing": async (a: StubFacilitator) => {
    a.verify = { kind: "json", status: 200, body: { payer: "0x0000000000000000000000000000000000000001" } };
  },
};

async function heal(a: StubFacilitator) {
  a.verify = STUB_VALID;
  await a.accept().catch(() => undefined); // listening already unless refused
}

for (const [fault, inject] of Object.entries(FAULTS)) {
  test(`first facilitator ${fault}: paid calls go on through the second, the first is taken back when it recovers`, async () => {
    const pair = await startPair();
    const { a, b, service } = pair;
    assert.deepEqual(await buyMany(service, 2), [200, 200]);
    assert.equal(a.calls.settle, 2, "the first facilitator serves while healthy");
    await inject(a);
    const during = await buyMany(service, 5);
    assert.deepEqual(during, [200, 200, 200, 200, 200], "verify fails over within the same paid call");
    assert.equal(b.calls.settle, 5);
    assert.equal(await circuit(service, host(a)), "open", "the threshold (2) opened the first's circuit");
    // Once open, the first is not asked again while the second serves.
    const aVerifies = a.calls.verify;
    assert.deepEqual(await buyMany(service, 2), [200, 200]);
    assert.equal(a.calls.verify, aVerifies);
    await heal(a);
    // The probe of /supported makes it half-open; the next payment's verify is its trial and closes it.
    await until(async () => (await circuit(service, host(a))) === "half-open");
    assert.deepEqual(await buyMany(service, 2), [200, 200]);
    assert.equal(await circuit(service, host(a)), "closed");
    assert.equal(a.calls.settle, 4, "taken back after the half-open trial");
    await assertPaidOnce(pair, 11);
  });
}

test("a settle whose connection is refused goes to the second; one that timed out stays with the first", async () => {
  const pair = await startPair();
  const { a, b, service } = pair;
  // The first verifies, then goes away before the settlement: its connection is refused, nothing was sent.
  a.afterVerify = () => {
    a.afterVerify = undefined;
    void a.refuse();
  };
  const moved = await buy(service);
  assert.equal(moved.response.status, 200);
  assert.deepEqual([a.calls.settle, b.calls.settle], [0, 1]);
  await a.accept();
  await until(async () => (await circuit(service, host(a))) === "closed");

  // The first takes the settle and never answers: it may have submitted it, so the second never sees it.
  a.settle = { kind: "hang" };
  const before = b.calls.settle;
  const stuck = await buy(service);
  assert.notEqual(stuck.response.status, 200, "no answer without a settled payment");
  assert.equal(stuck.body.charged === true, false);
  assert.equal(a.calls.settle, 1);
  assert.equal(b.calls.settle, before, "a settle that may have been submitted is never sent twice");
  const states = await ledger(service);
  assert.equal(states.settled, 1);
  assert.equal(states.unknown, 1, "the timed-out settlement is left to the chain");
});

test("all facilitators down: 402s from the last /supported (also after a restart), paid calls 503 with Retry-After", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-facilitators-"));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, "store.sqlite")}` };
  try {
    const pair = await startPair(env);
    const { a, b } = pair;
    let { service } = pair;
    assert.equal((await buy(service)).response.status, 200);
    await a.refuse();
    await b.refuse();
    const statuses = await buyMany(service, 4);
    // Until both circuits open (threshold 2 each) a paid call is refused as the facilitator failing (502),
    // then at once as no facilitator (503 with Retry-After); never charged.
    assert.ok(
      statuses.every((s) => s === 502 || s === 503),
      String(statuses),
    );
    const refused = await buy(service);
    assert.equal(refused.response.status, 503);
    assert.equal(refused.body.error, "facilitators_down");
    assert.equal(refused.body.charged, false);
    assert.ok(Number(refused.response.headers.get("retry-after")) >= 1);
    const unpaid = await fetch(`${service.url}${ITEM}`);
    assert.equal(unpaid.status, 402, "the 402 is still served from the last /supported");
    assert.ok(decodeBase64Json(unpaid.headers.get("payment-required")).accepts);
    const ready = await fetch(`${service.url}/ready`);
    assert.equal(ready.status, 503);
    assert.match(JSON.stringify(await ready.json()), /no facilitator can take payments/);
    assert.deepEqual(await ledger(service), { settled: 1 }, "nothing charged while down");
    // Probes keep coming while it stays down (each failed one opens another period); the first back is used.
    await sleep(1200);
    await a.accept();
    await until(async () => (await buy(service)).response.status === 200, 8000);
    assert.deepEqual(await ledger(service), { settled: 2 });
    await a.refuse();

    // A restart during the outage: payments are ready from the stored /supported, the 402 offers it.
    await service.close();
    running.splice(running.length - 1, 1);
    service = await startListeningService(
      { FACILITATOR_URL: `${a.url},${b.url}`, PAY_TO_EVM: STUB_PAY_TO, ...HEALTH, ...env },
      [testFamily],
    );
    running.push(() => service.stop());
    const again = await fetch(`${service.url}${ITEM}`);
    assert.equal(again.status, 402);
    const accepts = (decodeBase64Json(again.headers.get("payment-required")).accepts ?? []) as Array<{
      network: string;
    }>;
    assert.deepEqual(
      accepts.map((x) => x.network),
      ["eip155:8453"],
    );
    const paid = await buy(service);
    assert.ok([502, 503].includes(paid.response.status));
    assert.equal(paid.body.charged, false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a /supported withdrawing a network: the 402 stops offering it within the re-read interval", async () => {
  const { a, b, service } = await startPair({ NETWORKS: "base,base-sepolia" });
  const sepolia = { x402Version: 2, scheme: "exact", network: "eip155:84532" };
  for (const stub of [a, b]) stub.supported.kinds.push(sepolia);
  const offered = async () => {
    const response = await fetch(`${service.url}${ITEM}`);
    const accepts = decodeBase64Json(response.headers.get("payment-required")).accepts as Array<{
      network: string;
    }>;
    return accepts.map((x) => x.network).sort();
  };
  await until(async () => (await offered()).includes("eip155:84532"));
  for (const stub of [a, b])
    stub.supported.kinds = stub.supported.kinds.filter((k) => k.network !== "eip155:84532");
  const started = Date.now();
  await until(async () => !(await offered()).includes("eip155:84532"), 3000);
  assert.ok(Date.now() - started < 3000);
  assert.deepEqual(await offered(), ["eip155:8453"]);
  assert.equal((await buy(service)).response.status, 200);
});

test("more than 16 verify calls in flight at once against one slow facilitator", async () => {
  const stub = await startStubFacilitator();
  running.push(() => stub.close());
  stub.verify = { ...STUB_VALID, delayMs: 1500 };
  const service = await startListeningService(
    { FACILITATOR_URL: stub.url, PAY_TO_EVM: STUB_PAY_TO, FACILITATOR_TIMEOUT_MS: "5000" },
    [testFamily],
  );
  running.push(() => service.stop());
  const statuses = await Promise.all(
    Array.from({ length: 32 }, async () => (await buy(service)).response.status),
  );
  assert.ok(
    statuses.every((s) => s === 200),
    String(statuses),
  );
  assert.ok(stub.maxInFlight > 16, `the facilitator saw ${stub.maxInFlight} calls at once`);
});
