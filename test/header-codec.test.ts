import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "@x402/core/types";
import {
  decodeHeaderJson,
  decodePaymentSignature,
  encodePaymentResponse,
  encodePaymentSignature,
} from "../src/x402/shared/header-codec.ts";

const payload = {
  x402Version: 2,
  resource: {
    url: "https://paycall.example/v1/gov/pl/companies?q=Spółka Żółć ✓",
    description: "d",
    mimeType: "x",
  },
  accepted: {
    scheme: "exact",
    network: "eip155:8453",
    amount: "5000",
    asset: "0xabc",
    payTo: "0xdef",
    maxTimeoutSeconds: 300,
    extra: {},
  },
  payload: {
    signature: "0x12",
    authorization: { from: "0x1", to: "0x2", value: "5000", validAfter: "0", validBefore: "9", nonce: "0x3" },
  },
  extensions: { "payment-identifier": { info: { required: false, id: "pay_0123456789abcdef" } } },
} as unknown as PaymentPayload;

describe("x402 header codec", () => {
  it("decodes PAYMENT-SIGNATURE exactly as the SDK does, non-ASCII included", () => {
    const header = encodePaymentSignatureHeader(payload);
    assert.deepEqual(decodePaymentSignature(header), decodePaymentSignatureHeader(header));
  });

  it("encodes PAYMENT-SIGNATURE byte for byte as the SDK does (the MCP tools' in-process request)", () => {
    assert.equal(encodePaymentSignature(payload), encodePaymentSignatureHeader(payload));
  });

  it("decodes PAYMENT-REQUIRED and PAYMENT-RESPONSE as the SDK does", () => {
    const required = {
      x402Version: 2,
      error: "payment_required",
      resource: payload.resource,
      accepts: [payload.accepted],
      extensions: { bazaar: { info: { note: "Zürich ✓" } } },
    } as unknown as PaymentRequired;
    const requiredHeader = encodePaymentRequiredHeader(required);
    assert.deepEqual(decodeHeaderJson(requiredHeader), decodePaymentRequiredHeader(requiredHeader));
    const settled = {
      success: true,
      transaction: "0xfeed",
      network: "eip155:8453",
      payer: "0x1",
    } as SettleResponse;
    const responseHeader = encodePaymentResponseHeader(settled);
    assert.deepEqual(decodeHeaderJson(responseHeader), decodePaymentResponseHeader(responseHeader));
  });

  it("accepts exactly what the SDK accepts", () => {
    const json = Buffer.from('{"a":"Żółć"}', "utf8").toString("base64");
    const cases = [
      "e30",
      "e30=",
      "e30==",
      "e3==",
      "e3=",
      "e30=x",
      "e3-0",
      "e3_0",
      "e3 0",
      "e30\n",
      "YWJj=",
      "",
      "=",
      "e3Ł",
      "ŁŁŁŁ",
      "e3é0",
      "e3İ",
    ];
    for (const text of [
      ...cases,
      json,
      `${json}=`,
      json.replace(/=+$/, ""),
      `${json.slice(0, 4)}!${json.slice(4)}`,
    ]) {
      let sdk: unknown;
      let ours: unknown;
      try {
        sdk = decodePaymentRequiredHeader(text);
      } catch {
        sdk = "refused";
      }
      try {
        ours = decodeHeaderJson(text);
      } catch {
        ours = "refused";
      }
      assert.deepEqual(ours, sdk, JSON.stringify(text));
    }
  });

  it("refuses what the SDK refuses", () => {
    for (const bad of ["not base64!", "abcde", "YWJj=x"]) {
      assert.throws(() => decodePaymentSignatureHeader(bad), bad);
      assert.throws(() => decodePaymentSignature(bad), bad);
      assert.throws(() => decodePaymentRequiredHeader(bad), bad);
      assert.throws(() => decodeHeaderJson(bad), bad);
    }
  });

  it("encodes PAYMENT-RESPONSE byte for byte as the SDK does, leaving out extension responses", () => {
    const settlement = {
      success: true,
      transaction: "0xfeed",
      network: "eip155:8453",
      payer: "0x1",
      extensions: { "offer-receipt": { info: { receipt: "é" } } },
      extensionResponses: { internal: { status: "ok" } },
    } as unknown as SettleResponse;
    assert.equal(encodePaymentResponse(settlement), encodePaymentResponseHeader(settlement));
    assert.ok(!Buffer.from(encodePaymentResponse(settlement), "base64").toString().includes("internal"));
  });
});
