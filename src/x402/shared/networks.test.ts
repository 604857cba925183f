import assert from "node:assert/strict";
import { test } from "node:test";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { ExactSvmScheme } from "@x402/svm/exact/server";
import { atomicToUsd, usdToAtomic } from "./money.ts";
import { NETWORKS } from "./networks.ts";

test("each network's USDC and EIP-712 domain agree with the SDK's exact schemes", async () => {
  for (const network of Object.values(NETWORKS)) {
    const scheme = network.kind === "evm" ? new ExactEvmScheme() : new ExactSvmScheme();
    const price = await scheme.parsePrice("$0.01", network.caip2);
    assert.equal(price.asset, network.usdc.address, network.name);
    assert.equal(price.amount, "10000", network.name);
    if (network.usdc.eip712) assert.deepEqual(price.extra, network.usdc.eip712, network.name);
  }
});

test("USD decimals convert to atomic USDC exactly and back", () => {
  assert.equal(usdToAtomic("0.005"), 5000n);
  assert.equal(usdToAtomic("50000"), 50_000_000_000n);
  assert.equal(usdToAtomic("1.000001"), 1_000_001n);
  assert.equal(atomicToUsd(5000n), "0.005");
  assert.equal(atomicToUsd(50_000_000_000n), "50000");
  assert.throws(() => usdToAtomic("0.0000001"));
  assert.throws(() => usdToAtomic("-1"));
  assert.throws(() => usdToAtomic("1e3"));
});
