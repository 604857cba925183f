// The facilitator's EXTENSION-RESPONSES after a settlement: the Bazaar's verdict counted per product and day.
import assert from "node:assert/strict";
import { test } from "node:test";
import { indexerVerdicts, paywallEvents } from "./paywall-events.ts";

test("the Bazaar's verdict is counted: listed or refused, with the reason logged when refused", () => {
  const counted: string[] = [];
  const warned: unknown[] = [];
  const events = paywallEvents({ count: (sku, kind) => counted.push(`${sku} ${kind}`) }, undefined, {
    warn: (fields: unknown) => warned.push(fields),
  } as never);
  events.extensionResponses("macro.ecb.fx", { bazaar: { status: "success" } });
  events.extensionResponses("macro.ecb.fx", {
    bazaar: { status: "rejected", rejectedReason: "invalid_schema" },
  });
  events.extensionResponses("macro.ecb.fx", { "payment-identifier": { status: "ok" } });
  assert.deepEqual(counted, ["macro.ecb.fx indexed", "macro.ecb.fx index_refused"]);
  assert.deepEqual(warned, [
    { sku: "macro.ecb.fx", extension: "bazaar", status: "rejected", reason: "invalid_schema" },
  ]);
});

test("verdicts keep only word-like statuses and bounded reasons", () => {
  assert.deepEqual(
    indexerVerdicts({ bazaar: { status: "<b>odd</b>", reason: "x".repeat(300) }, other: "text" }),
    [{ extension: "bazaar", status: "other", reason: "x".repeat(200) }],
  );
});
