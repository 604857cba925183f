import assert from "node:assert/strict";
import { test } from "node:test";
import type { PaymentRequirements } from "@x402/core/types";
import { uptoSettlementAmount } from "./upto-offer.ts";

const requirements = { scheme: "upto", amount: "8095" } as PaymentRequirements;

test("upto settles what the answer used, never above the authorized maximum, the maximum when unmeasured", () => {
  assert.equal(uptoSettlementAmount(requirements, { amount: "5039", counts: {} }), "5039");
  // A provider counting more prompt tokens than the price did cannot push the charge past the maximum.
  assert.equal(uptoSettlementAmount(requirements, { amount: "9000", counts: {} }), "8095");
  assert.equal(uptoSettlementAmount(requirements, undefined), "8095");
  assert.equal(uptoSettlementAmount(requirements, { amount: "-1", counts: {} }), "8095");
});
