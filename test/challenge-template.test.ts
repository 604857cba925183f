// The 402 of any URL comes from bytes prepared once per product and price, with only the URL spliced in:
// it must be exactly what the SDK would encode for that URL.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import { startTestService, type TestService } from "./harness.ts";

let service: TestService;

before(async () => {
  service = await startTestService();
});
after(() => service.stop());

type PaymentRequired = ReturnType<typeof decodePaymentRequiredHeader>;

async function challenge(
  path: string,
): Promise<{ header: string; decoded: PaymentRequired; body: Record<string, unknown> }> {
  const response = await fetch(`${service.url}${path}`);
  assert.equal(response.status, 402, path);
  const header = response.headers.get("payment-required") ?? "";
  return {
    header,
    decoded: decodePaymentRequiredHeader(header),
    body: (await response.json()) as Record<string, unknown>,
  };
}

test("every URL's 402 is byte for byte the SDK's encoding of the same payment request", async () => {
  const queries = [
    "fourth amendment",
    "Müller v. Oregon",
    'quote "marks" \\ backslash',
    "日本 法令",
    "a+b&c=d",
    "x".repeat(250),
    // Three URLs one byte apart: the URL ends on each position of a base64 group once.
    "a",
    "ab",
    "abc",
  ];
  const first = await challenge(`/v1/courts/search?q=${encodeURIComponent("baseline")}`);
  for (const q of queries) {
    const path = `/v1/courts/search?q=${encodeURIComponent(q)}`;
    const { header, decoded, body } = await challenge(path);
    const url = (decoded.resource as { url: string }).url;
    assert.equal(url, `${service.config.publicUrl}${path}`);
    assert.equal(
      encodePaymentRequiredHeader(decoded),
      header,
      "the SDK encodes the decoded request to the same bytes",
    );
    // Field by field, the same request as any other URL of the product but for the resource URL.
    const expected = { ...first.decoded, resource: { ...(first.decoded.resource as object), url } };
    assert.deepEqual(decoded, expected);
    assert.equal(encodePaymentRequiredHeader(expected as PaymentRequired), header);
    assert.deepEqual(body.resource, decoded.resource);
    assert.deepEqual(body.accepts, decoded.accepts);
    assert.equal(body.freeSample, `${service.config.publicUrl}/v1/courts/search?q=fourth+amendment&sample=1`);
  }
});

test("products and prices keep their own templates", async () => {
  const courts = await challenge("/v1/courts/search?q=one");
  const fx = await challenge("/v1/macro/ecb/fx?pair=GBP");
  assert.notDeepEqual(courts.decoded.extensions, fx.decoded.extensions);
  assert.equal((fx.decoded.resource as { description: string }).description.length > 0, true);
  assert.equal(courts.decoded.accepts[0]?.amount, "5000");
});
