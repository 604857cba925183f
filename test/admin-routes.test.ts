// The /admin routes on a running service: who may see them, /admin/stats, the sign-in link and refunds.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Stats } from "../src/admin/stats.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { BASE, PAYERS, type Seeded, seedLedger } from "./admin-seed.ts";
import { newBuyer, payingFetch, startTestService, type TestService } from "./harness.ts";

const TOKEN = "admin-token-for-tests-0123";
const BEARER = { authorization: `Bearer ${TOKEN}` };
const TX = `0x${"12".repeat(32)}`;
let service: TestService;
let seeded: Seeded;

before(async () => {
  // Behind a trusted proxy, so that the wrong-token test counts its failed sign-ins against a client of its own.
  service = await startTestService({ ADMIN_TOKEN: TOKEN, TRUST_PROXY: "true" });
  seeded = await seedLedger(service.store, new Date());
});
after(() => service.stop());

async function stats(query = ""): Promise<Stats> {
  const response = await fetch(`${service.url}/admin/stats${query}`, { headers: BEARER });
  assert.equal(response.status, 200);
  return (await response.json()) as Stats;
}

function postRefund(id: number | string, body: unknown, headers: Record<string, string> = BEARER) {
  return fetch(`${service.url}/admin/refunds/${id}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A settled payment two days old whose answer never reached the buyer. */
async function refundDueRow(): Promise<number> {
  const at = new Date(Date.now() - 2 * 24 * 3600_000);
  const id = await service.store.ledger.record(
    {
      sku: "macro.ecb.fx",
      requestHash: "h",
      network: BASE,
      payer: PAYERS.p1,
      amount: "5000",
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      payTo: PAYERS.p2,
      transaction: TX,
      responseSha256: "0".repeat(64),
      state: "pending",
    },
    at,
  );
  await service.store.ledger.resolve(id, "settled", TX, null, { now: at });
  return id;
}

test("without the token, or with a wrong one, every admin route answers 404 as if absent", async () => {
  const guesser = { "x-forwarded-for": "203.0.113.70" };
  const refused: Array<Record<string, string>> = [
    { ...guesser },
    { ...guesser, authorization: "Bearer wrong-token-0123456789" },
    { ...guesser, cookie: "paycall_admin=x" },
  ];
  for (const headers of refused) {
    for (const path of ["/admin", "/admin/stats", "/admin/ledger"]) {
      const response = await fetch(`${service.url}${path}`, { headers });
      assert.equal(response.status, 404, path);
      assert.equal(((await response.json()) as { error: string }).error, "not_found");
    }
    assert.equal((await postRefund(seeded.refundDueId, { transaction: TX }, headers)).status, 404);
  }
  const wrongLink = await fetch(`${service.url}/admin?token=wrong-token-0123456789`, {
    redirect: "manual",
    headers: { "x-forwarded-for": "203.0.113.71" },
  });
  assert.equal(wrongLink.status, 404);
  assert.equal(wrongLink.headers.get("set-cookie"), null);
  const catalog = await (await fetch(`${service.url}/catalog.json`)).text();
  const openapi = await (await fetch(`${service.url}/openapi.json`)).text();
  assert.ok(!catalog.includes("/admin") && !openapi.includes("/admin"), "admin routes are never advertised");
});

test("/admin/stats: the figures as JSON, not cached; a malformed period is a 400 naming it", async () => {
  const response = await fetch(`${service.url}/admin/stats`, { headers: BEARER });
  assert.equal(response.headers.get("cache-control"), "no-store");
  const body = (await response.json()) as Stats;
  assert.equal(body.period.days, 30);
  assert.ok(BigInt(body.revenue.atomic) >= 1_515_000n);
  for (const [query, parameter] of [
    ["?from=2026-13-01", "from"],
    ["?to=tomorrow", "to"],
    ["?from=2026-03-02&to=2026-03-01", "from"],
  ]) {
    const bad = await fetch(`${service.url}/admin/stats${query}`, { headers: BEARER });
    assert.equal(bad.status, 400, query);
    const error = (await bad.json()) as { error: string; parameter: string; message: string };
    assert.equal(error.error, "invalid_parameter");
    assert.equal(error.parameter, parameter);
    assert.match(error.message, new RegExp(`^${parameter}:`));
  }
});

test("402s, paid answers and free samples are counted per product and reach the figures", async () => {
  await service.worker.runWarmer("ecb.fx");
  const url = `${service.url}/v1/macro/ecb/fx?pair=USD`;
  assert.equal((await fetch(url)).status, 402);
  assert.equal((await fetch(url)).status, 402, "the recent-challenge answer is counted too");
  assert.equal((await fetch(`${url}&sample=1`)).status, 200);
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  assert.equal((await payingFetch(buyer)(url)).status, 200);

  const fx = (await stats()).products.find((p) => p.sku === "macro.ecb.fx");
  // The paying buyer first got a 402 too: three challenges, one paid answer.
  assert.deepEqual(
    fx && [fx.challenges, fx.paidCounted, fx.samples, fx.conversion, fx.paidCalls],
    [3, 1, 1, 0.3333, 1],
  );
});

test("POST /admin/refunds/:id records a refund once, for a row that is owed one", async () => {
  const id = seeded.refundDueId;
  const invalid = async (response: Response, parameter: string) => {
    assert.equal(response.status, 400);
    const body = (await response.json()) as { parameter: string };
    assert.equal(body.parameter, parameter);
  };
  await invalid(await postRefund(id, "{not json"), "body");
  await invalid(await postRefund(id, {}), "transaction");
  await invalid(await postRefund(id, { transaction: "0x1234" }), "transaction");
  await invalid(await postRefund(id, { transaction: TX, note: 12 }), "note");
  await invalid(await postRefund(id, { transaction: TX, note: "x".repeat(501) }), "note");
  await invalid(await postRefund("abc", { transaction: TX }), "id");
  // A Solana signature cannot refund a payment made on Base.
  await invalid(await postRefund(id, { transaction: "5".repeat(88) }), "transaction");

  assert.equal((await postRefund(99_999_999, { transaction: TX })).status, 404);
  const delivered = await postRefund(seeded.deliveredId, { transaction: TX });
  assert.equal(delivered.status, 409);
  assert.equal(((await delivered.json()) as { error: string }).error, "not_refund_due");

  const recorded = await postRefund(id, { transaction: TX, note: "refunded from the pay-to wallet" });
  assert.equal(recorded.status, 201);
  const { refund } = (await recorded.json()) as { refund: Record<string, unknown> };
  assert.equal(refund.ledgerId, id);
  assert.equal(refund.transaction, TX);
  assert.equal(refund.usd, "0.005");
  assert.equal(refund.atomic, "5000");
  assert.equal(refund.note, "refunded from the pay-to wallet");

  const again = await postRefund(id, { transaction: TX });
  assert.equal(again.status, 409);
  assert.equal(((await again.json()) as { error: string }).error, "already_refunded");

  const figures = await stats();
  assert.ok(!figures.refunds.due.some((r) => r.id === id), "no longer due");
  assert.ok(figures.refunds.made.some((r) => r.ledgerId === id && r.transaction === TX));
  const ledger = (await (await fetch(`${service.url}/admin/ledger`, { headers: BEARER })).json()) as {
    refundsDue: Array<{ id: number }>;
  };
  assert.ok(!ledger.refundsDue.some((r) => r.id === id));
});

test("a sign-in link sets an HttpOnly SameSite=Strict cookie that opens the page and its refund form", async () => {
  const link = await fetch(`${service.url}/admin?token=${TOKEN}&from=2026-01-01`, { redirect: "manual" });
  assert.equal(link.status, 303);
  assert.equal(link.headers.get("location"), "/admin?from=2026-01-01");
  const setCookie = link.headers.get("set-cookie") ?? "";
  assert.match(setCookie, /^paycall_admin=[^;]+; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=\d+/);
  assert.ok(!setCookie.includes(TOKEN), "the cookie does not hold the token itself");
  const cookie = setCookie.split(";")[0] as string;

  const page = await fetch(`${service.url}/admin`, { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  assert.equal(page.headers.get("cache-control"), "no-store");
  assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  assert.match(await page.text(), /paycall operator view/);
  assert.equal((await fetch(`${service.url}/admin/stats`, { headers: { cookie } })).status, 200);

  const id = await refundDueRow();
  const form = (origin: string) =>
    fetch(`${service.url}/admin/refunds/${id}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ transaction: TX, note: "" }).toString(),
    });
  assert.equal((await form("https://elsewhere.example")).status, 404, "another site's form is refused");
  const accepted = await form(service.url);
  assert.equal(accepted.status, 303);
  assert.equal(accepted.headers.get("location"), `/admin?refunded=${id}`);
  assert.equal((await service.store.refunds.get(id))?.transaction, TX);
  const repeated = await form(service.url);
  assert.equal(repeated.status, 409);
  assert.match(repeated.headers.get("content-type") ?? "", /^text\/html/);
});
