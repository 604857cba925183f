// The checkup against loopback sellers with one defect each (reachable only through the allow-list).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FetchRefusedError } from "../fetcher/address-policy.ts";
import { SafeFetcher } from "../fetcher/safe-fetcher.ts";
import type { CheckAnswer } from "./answer.ts";
import { explainBlock } from "./blocked.ts";
import { type FakeSellers, SELLER_PAY_TO, startFakeSellers } from "./fake-sellers.test-helper.ts";
import { runCheckup } from "./probe.ts";

let sellers: FakeSellers;
let fetcher: SafeFetcher;

before(async () => {
  sellers = await startFakeSellers();
  fetcher = new SafeFetcher({
    timeoutMs: 3000,
    maxBodyBytes: 100_000,
    userAgent: "paycall-doctor-test",
    allowHosts: new Set([sellers.hostPort, "127.0.0.1:1"]),
  });
});
after(async () => {
  await fetcher.close();
  await sellers.close();
});

const check = async (defect: string): Promise<CheckAnswer> =>
  (await runCheckup(sellers.url(defect), { fetcher, origin: "https://doctor.example" })).answer;

function codes(answer: CheckAnswer, severity?: string): string[] {
  return answer.paywall.problems.filter((p) => !severity || p.severity === severity).map((p) => p.code);
}

test("a healthy seller: ok_402, its price and payTo, no problems", async () => {
  const answer = await check("ok");
  assert.equal(answer.verdict, "seller_up");
  assert.equal(answer.paywall.state, "ok_402");
  assert.equal(answer.paywall.x402Version, 2);
  assert.deepEqual(answer.paywall.problems, []);
  assert.deepEqual(answer.price, [
    {
      usd: 0.01,
      network: "eip155:8453",
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      scheme: "exact",
      amount: "10000",
      payTo: SELLER_PAY_TO,
    },
  ]);
  assert.deepEqual(answer.payTo, [SELLER_PAY_TO]);
  assert.equal(answer.evidence.httpStatus, 402);
  assert.match(answer.evidence.bodySha256 ?? "", /^[0-9a-f]{64}$/);
  assert.ok(Number.isInteger(answer.latencyMs));
  assert.ok(sellers.requests.includes("GET /ok"), "the checkup requested the seller unpaid");
});

describe("paywall defects are named, with their fix", () => {
  const expectations: Array<
    [defect: string, verdict: string, state: string, code: string, severity: string]
  > = [
    ["no-cors", "seller_up", "ok_402", "cors_hides_challenge", "warning"],
    ["cors-no-expose", "seller_up", "ok_402", "cors_hides_challenge", "warning"],
    ["no-preflight", "seller_up", "ok_402", "preflight_refuses_payment_header", "warning"],
    ["legacy-network", "seller_problem", "invalid_402", "legacy_network_name", "error"],
    ["wrong-asset", "seller_problem", "invalid_402", "asset_wrong_network", "error"],
    ["other-token", "seller_up", "ok_402", "asset_not_usdc", "warning"],
    ["decimal-amount", "seller_problem", "invalid_402", "amount_not_atomic", "error"],
    ["number-amount", "seller_problem", "invalid_402", "amount_not_atomic", "error"],
    ["mis-scaled", "seller_up", "ok_402", "amount_suspicious", "warning"],
    ["domain-mismatch", "seller_problem", "invalid_402", "eip712_domain_mismatch", "error"],
    ["domain-missing", "seller_problem", "invalid_402", "eip712_domain_missing", "error"],
    ["zero-pay-to", "seller_problem", "invalid_402", "pay_to_invalid", "error"],
    ["bad-checksum", "seller_up", "ok_402", "pay_to_invalid", "warning"],
    ["empty-accepts", "seller_problem", "invalid_402", "accepts_empty", "error"],
    ["short-timeout", "seller_up", "ok_402", "max_timeout_out_of_range", "warning"],
    ["testnet-only", "seller_up", "ok_402", "testnet_only", "warning"],
    ["solana-no-fee-payer", "seller_problem", "invalid_402", "solana_fee_payer_missing", "error"],
    ["v1-version", "seller_problem", "invalid_402", "challenge_version_unsupported", "error"],
    ["cacheable", "seller_up", "ok_402", "challenge_cacheable", "info"],
    ["resource-http", "seller_up", "ok_402", "resource_url_mismatch", "warning"],
    ["header-body-mismatch", "seller_up", "ok_402", "header_body_mismatch", "warning"],
    ["base64url", "seller_problem", "invalid_402", "challenge_base64url", "error"],
    ["json-header", "seller_problem", "invalid_402", "challenge_missing", "error"],
    ["unreadable-header", "seller_problem", "unreadable_402", "challenge_missing", "error"],
    ["v1-body", "seller_problem", "v1_402", "challenge_v1_only", "error"],
    ["body-only", "seller_problem", "body_only_402", "challenge_missing", "error"],
    ["bare-402", "seller_problem", "bare_402", "challenge_missing", "error"],
    ["host-platform", "seller_problem", "bare_402", "host_platform_402", "error"],
    ["free", "delivered", "free_2xx", "paid_route_free", "warning"],
    ["auth", "seller_problem", "auth_required", "auth_before_paywall", "error"],
    ["waf", "blocked", "blocked", "waf_block", "error"],
    ["geo", "blocked", "blocked", "geo_block", "error"],
    ["rate-limited", "blocked", "rate_limited", "rate_limited", "warning"],
    ["missing", "client_problem", "client_error", "endpoint_not_found", "error"],
    ["broken", "seller_down", "server_error", "seller_server_error", "error"],
    ["slow", "seller_up", "ok_402", "slow_challenge", "warning"],
    ["proxy-502", "seller_down", "server_error", "proxy_header_too_big", "warning"],
    ["proxy-400", "client_problem", "client_error", "proxy_header_too_big", "warning"],
    ["big-head", "seller_up", "ok_402", "proxy_header_too_big", "warning"],
  ];
  for (const [defect, verdict, state, code, severity] of expectations) {
    test(defect, async () => {
      const answer = await check(defect);
      assert.equal(answer.verdict, verdict, JSON.stringify(answer.paywall));
      assert.equal(answer.paywall.state, state);
      const found = answer.paywall.problems.find((p) => p.code === code);
      assert.ok(found, `${defect}: expected ${code} in ${codes(answer)}`);
      assert.equal(found.severity, severity);
      assert.ok(found.fix.length > 20);
    });
  }
});

test("the proxy-buffer finding names the fix for nginx, Apache and HAProxy, and stays off sellers that fit", async () => {
  const big = (await check("big-head")).paywall.problems.find((p) => p.code === "proxy_header_too_big");
  assert.match(big?.message ?? "", /header block is \d{4} bytes/);
  for (const setting of ["proxy_buffer_size", "LimitRequestFieldSize", "ProxyIOBufferSize", "tune.bufsize"]) {
    assert.ok(big?.fix.includes(setting), setting);
  }
  // A JSON 400 is the seller's own validation, a 500 its own failure: no proxy guessed.
  for (const defect of ["ok", "broken", "missing"]) {
    assert.ok(!codes(await check(defect)).includes("proxy_header_too_big"), defect);
  }
});

describe("a seller that validates before its paywall", () => {
  test("checked bare: the seller's fault, proven by its documented example's 402", async () => {
    const answer = await check("validates-first");
    assert.equal(answer.verdict, "seller_problem");
    assert.deepEqual(codes(answer), ["validates_before_paywall"]);
    const [found] = answer.paywall.problems;
    assert.equal(found?.severity, "error");
    assert.match(found?.message ?? "", /gets 400, not 402/);
    assert.match(found?.fix ?? "", /no parameters at all/);
    assert.ok(sellers.requests.includes("GET /openapi.json"), "the documented example was looked up");
  });

  test("checked with its parameters: a good 402, with a warning that indexers' bare probe gets 400", async () => {
    const { answer } = await runCheckup(`${sellers.url("validates-first")}?q=coffee`, {
      fetcher,
      origin: "https://doctor.example",
    });
    assert.equal(answer.verdict, "seller_up");
    assert.deepEqual(codes(answer, "warning"), ["validates_before_paywall"]);
  });

  test("a seller whose bare request gets the 402 is not flagged", async () => {
    const { answer } = await runCheckup(`${sellers.url("ok")}?q=coffee`, {
      fetcher,
      origin: "https://doctor.example",
    });
    assert.deepEqual(codes(answer), []);
  });
});

test("a v1 body is read for its price, not a crash", async () => {
  const answer = await check("v1-body");
  assert.equal(answer.paywall.x402Version, 1);
  assert.equal(answer.price[0]?.network, "eip155:8453");
  assert.equal(answer.price[0]?.amount, "10000");
});

test("a POST-only endpoint is retried with POST after 405", async () => {
  const answer = await check("post-only");
  assert.equal(answer.method, "POST");
  assert.equal(answer.verdict, "seller_up");
});

test("an allow-listed seller that is down", async () => {
  const { answer } = await runCheckup("http://127.0.0.1:1/x", { fetcher, origin: "https://doctor.example" });
  assert.equal(answer.verdict, "seller_down");
  assert.equal(answer.paywall.state, "unreachable");
  assert.equal(answer.evidence.httpStatus, null);
  assert.deepEqual(codes(answer), ["seller_unreachable"]);
});

test("without the allow-list the same loopback seller is refused", async () => {
  const strict = new SafeFetcher({ timeoutMs: 1000, maxBodyBytes: 1000, userAgent: "t" });
  await assert.rejects(
    runCheckup(sellers.url("ok"), { fetcher: strict, origin: "https://d.example" }),
    FetchRefusedError,
  );
  await strict.close();
});

describe("blocked: whose path the block is on", () => {
  test("we reach the paywall, you got 403: your path", async () => {
    const explained = explainBlock(403, await check("ok"));
    assert.equal(explained.blockedOn, "your_path");
    assert.match(explained.explanation, /your IP address/);
  });
  test("we are blocked too: the seller's side", async () => {
    assert.equal(explainBlock(403, await check("waf")).blockedOn, "seller_side");
  });
  test("you got the 402 while we are blocked: our path", async () => {
    assert.equal(explainBlock(402, await check("geo")).blockedOn, "our_path");
  });
  test("a 402 is not a block", async () => {
    assert.equal(explainBlock(402, await check("ok")).blockedOn, "none");
  });
  test("the seller is down for everyone", async () => {
    assert.equal(explainBlock(503, await check("broken")).blockedOn, "seller_side");
  });
  test("a wrong URL is not a block", async () => {
    assert.equal(explainBlock(404, await check("missing")).blockedOn, "your_request");
  });
});
