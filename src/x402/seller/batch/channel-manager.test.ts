import assert from "node:assert/strict";
import { test } from "node:test";
import type { Channel } from "@x402/evm/batch-settlement/server";
import { claimDue } from "./channel-manager.ts";

const NOW = 1_800_000_000_000;
const SETTINGS = { claimThresholdAtomic: 5_000_000, claimIntervalMs: 3600_000, withdrawDelaySec: 86_400 };

function channel(charged: string, claimed: string, overrides: Partial<Channel> = {}): Channel {
  return {
    channelId: `0x${"1".repeat(64)}`,
    channelConfig: {} as Channel["channelConfig"],
    chargedCumulativeAmount: charged,
    signedMaxClaimable: charged,
    signature: "0x",
    balance: "10000000",
    totalClaimed: claimed,
    withdrawRequestedAt: 0,
    refundNonce: 0,
    lastRequestTimestamp: NOW - 60_000,
    ...overrides,
  };
}

test("nothing unclaimed: never due, whatever the clock says", () => {
  assert.equal(claimDue([channel("5000", "5000", { withdrawRequestedAt: 1 })], SETTINGS, 0, NOW), undefined);
});

test("what the channels owe passes the threshold: due at once", () => {
  const owing = [channel("3000000", "0"), channel("2500000", "500000")];
  assert.equal(claimDue(owing, SETTINGS, NOW - 1000, NOW), "threshold");
  assert.equal(claimDue(owing.slice(0, 1), SETTINGS, NOW - 1000, NOW), undefined);
});

test("a buyer asked to withdraw, or a voucher is half a withdraw delay old: due before the delay runs out", () => {
  assert.equal(
    claimDue([channel("10", "0", { withdrawRequestedAt: NOW / 1000 })], SETTINGS, NOW, NOW),
    "withdrawal",
  );
  const old = channel("10", "0", { lastRequestTimestamp: NOW - 43_200_000 });
  assert.equal(claimDue([old], SETTINGS, NOW, NOW), "withdraw-delay");
  assert.equal(claimDue([{ ...old, lastRequestTimestamp: NOW - 43_100_000 }], SETTINGS, NOW, NOW), undefined);
});

test("the claim interval counts from the last claim", () => {
  assert.equal(claimDue([channel("10", "0")], SETTINGS, NOW - 3600_000, NOW), "interval");
  assert.equal(claimDue([channel("10", "0")], SETTINGS, NOW - 3500_000, NOW), undefined);
});
