// An uncertain upto (Permit2) settlement decided on an EVM chain: Permit2's nonce bitmap says whether the
// authorization was spent; unspent past its deadline is final.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { type StubEvmRpc, startStubEvmRpc } from "../../../../test/stub-evm-rpc.ts";
import { evmSettlementChain } from "./evm.ts";

let rpc: StubEvmRpc;
before(async () => {
  rpc = await startStubEvmRpc();
});
after(() => rpc.close());

const owner = "0x857b06519E91e3A54538791bDbb0E22373e36b66";
// A nonce whose bit is not the lowest of its word: word 0x…f3746613c2d920b5…, bit 0x80.
const nonce = 0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480n;

function lookup(deadline: number) {
  const requirements = {
    scheme: "upto",
    network: "eip155:8453",
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    amount: "8095",
    payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    maxTimeoutSeconds: 300,
    extra: {},
  } as PaymentRequirements;
  const payload = {
    x402Version: 2,
    accepted: requirements,
    payload: {
      signature: "0x00",
      permit2Authorization: {
        from: owner,
        permitted: { token: requirements.asset, amount: "8095" },
        spender: "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
        nonce: nonce.toString(),
        deadline: String(deadline),
        witness: { to: requirements.payTo, facilitator: owner, validAfter: "0" },
      },
    },
  } as PaymentPayload;
  return { payload, requirements, transaction: null, attemptedAt: new Date() };
}

test("Permit2's nonceBitmap decides: open, then spent; unspent past the deadline is expired", async () => {
  const chain = evmSettlementChain({ rpcUrl: rpc.url, timeoutMs: 2000, blockTimeSec: 2 });
  const now = Math.floor(Date.now() / 1000);
  rpc.chainTime = now;
  assert.equal((await chain.check(lookup(now + 300))).state, "open");
  // Another nonce of the same word spent: still open.
  rpc.spendPermit2(owner, nonce ^ 1n);
  assert.equal((await chain.check(lookup(now + 300))).state, "open");
  rpc.chainTime = now + 301;
  assert.deepEqual(await chain.check(lookup(now + 300)), { state: "expired" });
  rpc.spendPermit2(owner, nonce);
  assert.deepEqual(await chain.check(lookup(now + 300)), { state: "spent", transaction: null });
});
