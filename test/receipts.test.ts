// Signed offers in every 402 (its body) and a signed receipt with every paid answer (x402 offer-receipt extension),
// checked independently of the server's code: the signature against the public key its DID document
// publishes (node:crypto), the body digest against the bytes received.
import assert from "node:assert/strict";
import { createHash, createPublicKey, type JsonWebKey, verify } from "node:crypto";
import { after, before, test } from "node:test";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
} from "@x402/extensions/offer-receipt";
import { receiptsFamily } from "../src/features/receipts/index.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { newBuyer, payingFetch, startTestService, type TestService } from "./harness.ts";
import { testFamily } from "./test-family.ts";

const ITEM = "/v1/test/item?mode=ok";

let service: TestService;
let didDocument: {
  id: string;
  verificationMethod: Array<{ id: string; publicKeyJwk: JsonWebKey }>;
  assertionMethod: string[];
};

before(async () => {
  service = await startTestService({}, [testFamily, receiptsFamily()]);
  didDocument = (await (await fetch(`${service.url}/.well-known/did.json`)).json()) as typeof didDocument;
});
after(() => service.stop());

function jwsParts(jws: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = jws.split(".") as [string, string];
  return {
    header: JSON.parse(Buffer.from(header, "base64url").toString("utf8")),
    payload: JSON.parse(Buffer.from(payload, "base64url").toString("utf8")),
  };
}

/** EdDSA over header.payload, checked with node:crypto against the DID document's key. */
function signatureVerifies(jws: string): boolean {
  const [header, payload, signature] = jws.split(".") as [string, string, string];
  const method = didDocument.verificationMethod[0];
  assert.ok(method);
  return verify(
    null,
    Buffer.from(`${header}.${payload}`),
    createPublicKey({ key: method.publicKeyJwk, format: "jwk" }),
    Buffer.from(signature, "base64url"),
  );
}

/** The same JWS with one payload field changed and the original signature kept. */
function tampered(jws: string, field: string, value: unknown): string {
  const [header, payload, signature] = jws.split(".") as [string, string, string];
  const changed = { ...JSON.parse(Buffer.from(payload, "base64url").toString("utf8")), [field]: value };
  return `${header}.${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${signature}`;
}

test("the DID document is a did:web of the public URL naming one Ed25519 key", () => {
  const host = new URL(service.config.publicUrl).host;
  assert.equal(didDocument.id, `did:web:${encodeURIComponent(host)}`);
  const method = didDocument.verificationMethod[0];
  assert.match(method?.id ?? "", /^did:web:.+#receipts-[0-9a-f]{16}$/);
  assert.equal(method?.publicKeyJwk.crv, "Ed25519");
  assert.equal(method?.publicKeyJwk.d, undefined, "no private part");
  assert.deepEqual(didDocument.assertionMethod, [method?.id]);
});

/** The 402's body: the whole payment request, with the signed offers the header leaves out (4 KB heads). */
async function challengeBody(path: string): Promise<PaymentRequired> {
  const response = await fetch(`${service.url}${path}`);
  assert.equal(response.status, 402);
  const header = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
  assert.equal(header.extensions?.["offer-receipt"], undefined, "the signed offers are in the body only");
  const body = (await response.json()) as PaymentRequired;
  assert.deepEqual(body.accepts, header.accepts);
  return body;
}

test("every 402 carries one signed offer per accepts entry, signed once for all URLs of the product", async () => {
  const required = await challengeBody("/v1/test/item?mode=ok");
  const offers = extractOffersFromPaymentRequired(required);
  assert.equal(offers.length, required.accepts.length);
  const other = await challengeBody("/v1/test/item?mode=missing");
  assert.deepEqual(extractOffersFromPaymentRequired(other), offers, "the same signed offers for any query");

  const [offer] = decodeSignedOffers(offers);
  assert.ok(offer);
  assert.equal(offer.format, "jws");
  assert.equal(offer.resourceUrl, `${service.config.publicUrl}/v1/test/item`);
  assert.equal(findAcceptsObjectFromSignedOffer(offer, required.accepts), required.accepts[0]);
  assert.equal(offer.amount, "10000");
  assert.ok(offer.validUntil > Date.now() / 1000 + 60, "valid for a while yet");

  const jws = offer.signedOffer.signature;
  assert.equal(jwsParts(jws).header.alg, "EdDSA");
  assert.equal(jwsParts(jws).header.kid, didDocument.verificationMethod[0]?.id);
  assert.ok(signatureVerifies(jws));
  assert.ok(!signatureVerifies(tampered(jws, "amount", "1")), "a changed amount breaks the signature");
  const method = didDocument.verificationMethod[0];
  assert.ok(method);
  assert.equal(
    (await verifyOfferSignatureJWS(offer.signedOffer as never, method.publicKeyJwk as never)).payTo,
    offer.payTo,
  );

  assert.deepEqual(
    (required.extensions as Record<string, { info: unknown }>)["payment-identifier"]?.info,
    { required: false },
    "the 402 declares payment identifiers",
  );
});

test("a paid answer's receipt binds the body bytes, the payer and the transaction", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const [offer] = decodeSignedOffers(extractOffersFromPaymentRequired(await challengeBody(ITEM)));
  assert.ok(offer);

  const response = await payingFetch(buyer)(`${service.url}${ITEM}`);
  assert.equal(response.status, 200);
  const receipt = extractReceiptFromResponse(response);
  const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
  const bytes = Buffer.from(await response.arrayBuffer());
  assert.ok(receipt && receipt.format === "jws");

  assert.ok(signatureVerifies(receipt.signature), "signed by the key the DID document publishes");
  const { header, payload } = jwsParts(receipt.signature);
  assert.equal(header.kid, didDocument.verificationMethod[0]?.id);
  assert.equal(payload.responseSha256, createHash("sha256").update(bytes).digest("hex"));
  assert.equal(String(payload.payer).toLowerCase(), buyer.address.toLowerCase());
  assert.equal(payload.transaction, settlement.transaction);
  assert.equal(payload.network, "eip155:8453");
  assert.equal(payload.resourceUrl, `${service.config.publicUrl}/v1/test/item`);
  const [row] = await service.store.ledger.list();
  assert.equal(row?.transaction, settlement.transaction);
  assert.equal(row?.response_sha256, payload.responseSha256, "the ledger keeps the same digest");

  // What a buyer's SDK checks: the receipt matches the offer it accepted; did:web resolves to our key.
  assert.ok(verifyReceiptMatchesOffer(receipt, offer, [buyer.address]));
  assert.equal((await verifyReceiptSignatureJWS(receipt)).payer, payload.payer);
});

test("/v1/receipts/verify accepts our receipt and rejects a tampered or foreign one", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const response = await payingFetch(buyer)(`${service.url}/v1/test/item?mode=ok`);
  const bodyHash = createHash("sha256")
    .update(Buffer.from(await response.arrayBuffer()))
    .digest("hex");
  const jws = extractReceiptFromResponse(response)?.signature ?? "";
  const check = async (params: Record<string, string>) => {
    const answer = await fetch(`${service.url}/v1/receipts/verify?${new URLSearchParams(params)}`);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  const good = await check({ receipt: jws, sha256: bodyHash });
  assert.equal(good.status, 200);
  assert.equal(good.body.valid, true);
  assert.equal(good.body.responseMatches, true);
  const fields = good.body.receipt as Record<string, unknown>;
  assert.equal(String(fields.payer).toLowerCase(), buyer.address.toLowerCase());
  assert.equal(fields.responseSha256, bodyHash);
  assert.equal(good.body.kid, good.body.serverKid);

  // The whole PAYMENT-RESPONSE header works too, and another body's digest does not match.
  const header = await check({
    receipt: response.headers.get("payment-response") ?? "",
    sha256: "0".repeat(64),
  });
  assert.equal(header.body.valid, true);
  assert.equal(header.body.responseMatches, false);
  // So does the header decoded to JSON (what `npm run buy` prints as payment-response).
  const decoded = await check({
    receipt: Buffer.from(response.headers.get("payment-response") ?? "", "base64").toString("utf8"),
  });
  assert.equal(decoded.body.valid, true);
  // A fixed-price product's receipt carries no usage.
  assert.equal((decoded.body.receipt as Record<string, unknown>).usage, undefined);

  const forged = await check({ receipt: tampered(jws, "payer", newBuyer().address) });
  assert.equal(forged.status, 200);
  assert.equal(forged.body.valid, false);
  assert.match(String(forged.body.reason), /does not verify/);
  assert.equal(forged.body.receipt, undefined);

  const malformed: Array<Record<string, string>> = [
    { receipt: "not-a-receipt" },
    {},
    { receipt: jws, sha256: "xyz" },
  ];
  for (const params of malformed) {
    const refused = await check(params);
    assert.equal(refused.status, 400, JSON.stringify(params));
    assert.equal(refused.body.parameter, "sha256" in params ? "sha256" : "receipt");
  }
});
