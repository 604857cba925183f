// The stub facilitator settling on the stub chain: each settlement spends the payment's authorization with a
// transaction of its own, as a real facilitator would, so the chain can decide an uncertain row.
import type { Hex } from "viem";
import type { StubEvmRpc } from "./stub-evm-rpc.ts";
import { STUB_SETTLED, type StubFacilitator } from "./stub-facilitator.ts";

/** `delayMs`: how long each settlement takes to be answered (the transfer happens at once). */
export function settleOnTheStubChain(stub: StubFacilitator, rpc: StubEvmRpc, delayMs = 0): void {
  let count = 0;
  stub.onSettle = (body) => {
    const { from, nonce } = body.paymentPayload.payload.authorization;
    count += 1;
    const transaction = `0x${count.toString(16).padStart(64, "0")}` as Hex;
    rpc.spend(from, nonce, transaction);
    stub.settle = { ...STUB_SETTLED, body: { ...STUB_SETTLED.body, transaction, payer: from }, delayMs };
  };
}
