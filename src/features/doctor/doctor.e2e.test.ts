// End to end on loopback: a caller pays the doctor through x402; the doctor checks and really buys from a
// second paycall acting as the seller (its own local facilitator and pretend USDC), reached only through
// DOCTOR_ALLOW_HOSTS.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { extractReceiptFromResponse } from "@x402/extensions/offer-receipt";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  decodeBase64Json,
  newBuyer,
  payingFetch,
  startListeningService,
  type TestService,
} from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { buyPriceUsd } from "./buy/price.ts";
import { option } from "./checkup/fake-sellers.test-helper.ts";
import { createDoctorFamily } from "./index.ts";
import { doctorDb } from "./repository.ts";

const BASE = NETWORKS.base;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let seller: TestService;
let doctor: TestService;
let owned: { server: http.Server; origin: string; wellKnown: string };
const doctorKey = generatePrivateKey();
const doctorWallet = privateKeyToAccount(doctorKey);
const caller = newBuyer();
let fxUrl: string;

/** A seller the caller owns: a paid route that serves data for any payment header, and its well-known file. */
async function startOwnedSeller() {
  const state = { wellKnown: "" };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const self = `http://${req.headers.host}${url.pathname}`;
    if (url.pathname === "/.well-known/x402-doctor.txt") {
      res.writeHead(state.wellKnown ? 200 : 404, { "content-type": "text/plain" });
      res.end(state.wellKnown);
      return;
    }
    const challenge = { x402Version: 2, resource: { url: self }, accepts: [option()] };
    const paid = req.headers["payment-signature"] || req.headers["x-payment"];
    if (paid && url.pathname === "/drops-paid") {
      req.socket.destroy();
      return;
    }
    const refusal = {
      "/refuses": "invalid_exact_evm_payload_signature",
      "/broke-buyer": "insufficient_funds",
    }[url.pathname];
    if (paid && refusal) {
      const header = Buffer.from(JSON.stringify({ ...challenge, error: refusal })).toString("base64");
      res.writeHead(402, { "content-type": "application/json", "payment-required": header });
      res.end(JSON.stringify({ error: refusal }));
      return;
    }
    if (paid) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ secret: "served without verifying the payment" }));
      return;
    }
    res.writeHead(402, {
      "content-type": "application/json",
      "payment-required": Buffer.from(JSON.stringify(challenge)).toString("base64"),
      "access-control-allow-origin": "*",
      "access-control-expose-headers": "PAYMENT-REQUIRED",
      "cache-control": "no-store",
    });
    res.end(JSON.stringify({ error: "payment_required", preview: { rows: 3 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    origin,
    set wellKnown(text: string) {
      state.wellKnown = text;
    },
    get wellKnown() {
      return state.wellKnown;
    },
  };
}

before(async () => {
  seller = await startListeningService();
  await seller.worker.runWarmer("ecb.fx");
  owned = await startOwnedSeller();
  const sellerHost = new URL(seller.url).host;
  const env = {
    DOCTOR_BUYER_PRIVATE_KEY: doctorKey,
    DOCTOR_ALLOW_HOSTS: `${sellerHost},${new URL(owned.origin).host}`,
  };
  doctor = await startListeningService(env, [createDoctorFamily(loadConfig(env)).family]);
  await creditWallet(seller.store, BASE, doctorWallet.address, "1");
  await creditWallet(doctor.store, BASE, caller.address, "5");
  fxUrl = `${seller.url}/v1/macro/ecb/fx?pair=USD`;
});

after(async () => {
  await doctor.stop();
  await seller.stop();
  owned.server.closeAllConnections();
  owned.server.close();
});

const balance = (service: TestService, address: string) =>
  service.store.localUsdc.balance(BASE.caip2, address);
const json = (response: Response): Promise<any> => response.json();
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe("test-buy", () => {
  test("a real purchase from the seller, with both receipts and a report only its payer can read", async () => {
    const callerBefore = await balance(doctor, caller.address);
    const walletBefore = await balance(seller, doctorWallet.address);
    const response = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/buy?${q({ url: fxUrl, price: "0.01" })}`,
    );
    assert.equal(response.status, 200);
    const text = await response.text();
    const body = JSON.parse(text);
    assert.equal(body.verdict, "bought", body.disclosure);
    assert.equal(body.mode, "purchase");
    assert.equal(body.callPriceUsd, "0.021");
    assert.deepEqual(body.sellerPrice, {
      usd: 0.005,
      amount: "5000",
      network: "eip155:8453",
      asset: BASE.usdc.address,
      payTo: seller.config.payTo.evm,
      scheme: "exact",
    });
    assert.equal(body.seller.httpStatus, 200);
    assert.equal(body.seller.body.pair, "EURUSD");
    assert.equal(body.buyer, doctorWallet.address);
    assert.match(body.disclosure, /bought the URL once with its own wallet/);
    assert.match(body.reportId, /^dr_[0-9a-f]{32}$/);

    // The seller's receipt is the seller's own settlement of the doctor's payment.
    assert.equal(body.receipts.seller.success, true);
    const sellerRows = await seller.store.ledger.list();
    const sale = sellerRows.find((r) => r.transaction === body.receipts.seller.transaction);
    assert.ok(sale, "the seller's ledger has the doctor's purchase");
    assert.equal(sale.payer?.toLowerCase(), doctorWallet.address.toLowerCase());
    assert.equal(walletBefore - (await balance(seller, doctorWallet.address)), 5000n);

    // This call's receipt, and its price: 0.01 + 0.01 + 10 % of 0.01.
    const ownReceipt = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
    assert.equal(ownReceipt.success, true);
    assert.equal(callerBefore - (await balance(doctor, caller.address)), 21000n);

    // The report: exactly the delivered text, with this call's receipt, for the caller's wallet only.
    const report = await payingFetch(caller)(`${doctor.url}/v1/doctor/report?id=${body.reportId}`);
    assert.equal(report.status, 200);
    const stored = await json(report);
    assert.equal(stored.bodySha256, sha256(text));
    assert.equal(JSON.stringify(stored.body), text);
    assert.equal(stored.receipt.transaction, ownReceipt.transaction);
    assert.equal(stored.receipt.payer, caller.address.toLowerCase());
    assert.equal(stored.receipt.amount, "21000");
    // The signed receipt of the call that produced the report (offer-receipt extension).
    const signed = extractReceiptFromResponse(response)?.signature;
    assert.match(stored.receipt.signed, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(stored.receipt.signed, signed);

    const stranger = newBuyer();
    await creditWallet(doctor.store, BASE, stranger.address, "1");
    const refused = await payingFetch(stranger)(`${doctor.url}/v1/doctor/report?id=${body.reportId}`);
    assert.equal(refused.status, 404);
    assert.equal((await json(refused)).charged, false);
    assert.equal(await balance(doctor, stranger.address), 1_000_000n, "the stranger was not charged");
  });

  test("a seller asking more than the given price: nothing bought, the call is still paid", async () => {
    const walletBefore = await balance(seller, doctorWallet.address);
    const sellerRowsBefore = (await seller.store.ledger.list()).length;
    const response = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/buy?${q({ url: fxUrl, price: "0.001" })}`,
    );
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.equal(body.verdict, "not_bought_price_too_high");
    assert.equal(body.seller, null);
    assert.equal(body.receipts.seller, null);
    assert.match(body.disclosure, /Nothing was bought/);
    assert.equal(await balance(seller, doctorWallet.address), walletBefore);
    assert.equal((await seller.store.ledger.list()).length, sellerRowsBefore);
    assert.equal(
      decodePaymentResponseHeader(response.headers.get("payment-response") as string).success,
      true,
    );
  });

  test("the dynamic price is the same on the 402 and the paid retry", async () => {
    const url = `${doctor.url}/v1/doctor/buy?${q({ url: fxUrl, price: "0.25" })}`;
    const challenge = await fetch(url);
    assert.equal(challenge.status, 402);
    const accepts = decodeBase64Json(challenge.headers.get("payment-required")).accepts as Array<{
      amount: string;
    }>;
    assert.equal(accepts[0]?.amount, "285000");
    assert.equal(buyPriceUsd("0.25"), "0.285");
    const paid = await payingFetch(caller)(url);
    assert.equal(paid.status, 200);
    const row = (await doctor.store.ledger.list()).find(
      (r) =>
        r.transaction ===
        decodePaymentResponseHeader(paid.headers.get("payment-response") as string).transaction,
    );
    assert.equal(row?.amount, "285000");
  });

  test("a price lookup without price returns the seller's exact price and buys nothing", async () => {
    const walletBefore = await balance(seller, doctorWallet.address);
    const response = await payingFetch(caller)(`${doctor.url}/v1/doctor/buy?${q({ url: fxUrl })}`);
    const body = await json(response);
    assert.equal(body.verdict, "price_found");
    assert.equal(body.sellerPrice.amount, "5000");
    assert.equal(body.callPriceUsd, "0.01");
    assert.equal(await balance(seller, doctorWallet.address), walletBefore);
  });

  test("a seller refusing the service's payment: diagnosed, the call is paid", async () => {
    const response = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/buy?${q({ url: `${owned.origin}/refuses`, price: "0.01" })}`,
    );
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.equal(body.verdict, "payment_refused");
    assert.equal(body.diagnosis.cause, "signature_invalid");
    assert.equal(body.seller.httpStatus, 402);
  });

  test("the service's own wallet refused for lack of funds: 503, the caller is not charged", async () => {
    const before = await balance(doctor, caller.address);
    const response = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/buy?${q({ url: `${owned.origin}/broke-buyer`, price: "0.01" })}`,
    );
    assert.equal(response.status, 503);
    const body = await json(response);
    assert.equal(body.charged, false);
    assert.equal(await balance(doctor, caller.address), before);
  });

  test("a seller that hangs up after the payment was sent: outcome unknown, recorded in the report", async () => {
    const response = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/buy?${q({ url: `${owned.origin}/drops-paid`, price: "0.01" })}`,
    );
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.equal(body.verdict, "outcome_unknown");
    const stored = await doctorDb(doctor.store)
      .selectFrom("doctor_reports")
      .select("body")
      .where("id", "=", body.reportId)
      .executeTakeFirst();
    assert.equal(JSON.parse(stored?.body ?? "{}").verdict, "outcome_unknown");
  });

  test("a price above 1 USD is refused before payment", async () => {
    const response = await fetch(`${doctor.url}/v1/doctor/buy?${q({ url: fxUrl, price: "1.5" })}`);
    assert.equal(response.status, 400);
    assert.equal((await json(response)).parameter, "price");
  });

  test("without a buyer wallet a purchase is a 503 before payment, and a lookup still works", async () => {
    const { family, runtime } = createDoctorFamily(loadConfig({}));
    const buy = family.products.find((p) => p.sku === "doctor.buy");
    assert.ok(buy?.check);
    const refused = await buy.check({ query: { url: fxUrl, price: "0.01" }, body: undefined }, doctor.ctx);
    assert.equal(refused?.status, 503);
    assert.equal(refused?.body.charged, false);
    assert.equal(
      await buy.check({ query: { url: "https://api.example.com/x" }, body: undefined }, doctor.ctx),
      undefined,
    );
    await runtime.fetcher.close();
  });
});

describe("the other doctor products over HTTP", () => {
  test("checkup of the seller: seller_up with its price", async () => {
    const response = await payingFetch(caller)(`${doctor.url}/v1/doctor/checkup?${q({ url: fxUrl })}`);
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.equal(body.verdict, "seller_up");
    assert.equal(body.paywall.state, "ok_402");
    assert.equal(body.price[0].amount, "5000");
    assert.match(body.notice, /not a recorded sample/);
  });

  test("an internal address is refused before payment", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http://0x7f.1/",
      "https://example.com:8443/",
    ]) {
      const response = await fetch(`${doctor.url}/v1/doctor/checkup?${q({ url })}`);
      assert.equal(response.status, 400, url);
      const body = await json(response);
      assert.equal(body.parameter, "url");
      assert.equal(response.headers.get("payment-required"), null);
    }
  });

  test("blocked: you got 403 where we see the paywall", async () => {
    const response = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/blocked?${q({ url: fxUrl, status: "403" })}`,
    );
    const body = await json(response);
    assert.equal(body.youSaw.status, 403);
    assert.equal(body.weSaw.verdict, "seller_up");
    assert.equal(body.blockedOn, "your_path");
  });

  test("payment diagnosis by POST and by GET; an unknown reason is kept and reviewed", async () => {
    const challenge = await fetch(fxUrl);
    const header = challenge.headers.get("payment-required") as string;
    const viaPost = await payingFetch(caller)(`${doctor.url}/v1/doctor/payment`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        challenge: header,
        response: { isValid: false, invalidReason: "invalid_exact_evm_token_version_mismatch" },
      }),
    });
    assert.equal(viaPost.status, 200);
    const post = await json(viaPost);
    assert.equal(post.cause, "eip712_domain_mismatch");
    assert.equal(post.side, "seller");
    assert.equal(post.challenge.source, "pasted");

    const viaGet = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/payment?${q({ response: "invalid_exact_evm_token_version_mismatch" })}`,
    );
    assert.equal((await json(viaGet)).cause, "eip712_domain_mismatch");

    const unknown = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/payment?${q({ response: "facilitator_says_mercury_retrograde" })}`,
    );
    const body = await json(unknown);
    assert.equal(body.verdict, "unknown_reason");
    const kept = await doctorDb(doctor.store).selectFrom("doctor_unknown_reasons").selectAll().execute();
    assert.deepEqual(
      kept.map((r) => [r.reason, r.seen_count]),
      [["facilitator_says_mercury_retrograde", 1]],
    );
    const review = await doctor.worker.runWarmer("doctor.unknown-reasons");
    assert.deepEqual(review, { reviewed: 1, resolved: 0, stillUnknown: 1 });
  });

  test("the payment diagnosis price: 0.005, or 0.01 when the doctor fetches the challenge itself", async () => {
    const cheap = await fetch(`${doctor.url}/v1/doctor/payment?${q({ response: "insufficient_funds" })}`);
    const fetching = await fetch(
      `${doctor.url}/v1/doctor/payment?${q({ response: "insufficient_funds", url: fxUrl })}`,
    );
    const amount = (r: Response) =>
      (decodeBase64Json(r.headers.get("payment-required")).accepts as Array<{ amount: string }>)[0]?.amount;
    assert.equal(amount(cheap), "5000");
    assert.equal(amount(fetching), "10000");
    const paid = await payingFetch(caller)(
      `${doctor.url}/v1/doctor/payment?${q({ response: "insufficient_funds", url: fxUrl })}`,
    );
    const body = await json(paid);
    assert.equal(body.challenge.source, "fetched");
    assert.equal(body.cause, "insufficient_funds");
  });

  test("verify, then the seller check with ownership proved finds the leak", async () => {
    const url = `${owned.origin}/v1/data`;
    const notYet = await json(await payingFetch(caller)(`${doctor.url}/v1/doctor/seller?${q({ url })}`));
    assert.equal(notYet.ownership, "not_proved");
    assert.equal(notYet.leakCheck.performed, false);

    const verify = await json(await payingFetch(caller)(`${doctor.url}/v1/doctor/verify?${q({ url })}`));
    assert.match(verify.token, /^x402-doctor-verify=[0-9a-f]{32}$/);
    assert.equal(verify.wallet, caller.address.toLowerCase());
    assert.equal(verify.wellKnownUrl, `${owned.origin}/.well-known/x402-doctor.txt`);
    owned.wellKnown = `# our doctor token\n${verify.token}\n`;

    const proved = await json(await payingFetch(caller)(`${doctor.url}/v1/doctor/seller?${q({ url })}`));
    assert.equal(proved.ownership, "proved");
    assert.equal(proved.leakCheck.performed, true);
    assert.equal(proved.leakCheck.verdict, "leaks");
    const leaks = proved.leakCheck.leaks.map((l: { code: string }) => l.code);
    assert.ok(leaks.includes("payment_not_verified"), leaks);
    assert.ok(leaks.includes("data_in_402_body"), leaks);

    const other = newBuyer();
    await creditWallet(doctor.store, BASE, other.address, "1");
    const otherWallet = await json(await payingFetch(other)(`${doctor.url}/v1/doctor/seller?${q({ url })}`));
    assert.equal(otherWallet.ownership, "token_for_other_wallet");
    assert.equal(otherWallet.leakCheck.performed, false);
  });

  test("the free status endpoint", async () => {
    const body = await json(await fetch(`${doctor.url}/v1/doctor/status`));
    assert.equal(body.testBuy.available, true);
    assert.equal(body.testBuy.wallet, doctorWallet.address);
    assert.ok(body.catalogue.causes > 40);
    assert.ok(body.reports >= 1);
    assert.equal(body.fetcher.allowListedHosts, 2);
  });
});
