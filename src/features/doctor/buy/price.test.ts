import assert from "node:assert/strict";
import { test } from "node:test";
import { buyPriceUsd } from "./price.ts";

test("a lookup costs 0.01; a test-buy costs the price + 0.01 + 10 %, rounded up to the atomic unit", () => {
  assert.equal(buyPriceUsd(undefined), "0.01");
  assert.equal(buyPriceUsd("0.01"), "0.021");
  assert.equal(buyPriceUsd("0.25"), "0.285");
  assert.equal(buyPriceUsd("1"), "1.11");
  assert.equal(buyPriceUsd("0.000001"), "0.010002");
  assert.equal(buyPriceUsd("0.333333"), "0.376667");
});
