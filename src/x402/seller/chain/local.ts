// The local facilitator's "chain": the store's pretend USDC ledger, asked the same question as a real token
// contract (is this authorization's nonce spent, and by which transfer), for EIP-3009 (exact) and Permit2 (upto).
import type { Store } from "../../../store/store.ts";
import { permit2NonceKey } from "../../shared/upto-payload.ts";
import { eip3009Authorization, permit2Spend } from "./evm.ts";
import {
  ChainUnreachableError,
  type ChainVerdict,
  type SettlementChain,
  type SettlementLookup,
} from "./verdict.ts";

export function localSettlementChain(store: Store): SettlementChain {
  return {
    async check(lookup: SettlementLookup): Promise<ChainVerdict> {
      const permit2 = permit2Spend(lookup);
      const auth = eip3009Authorization(lookup) ?? permit2;
      if (!auth)
        throw new ChainUnreachableError("the payment is neither an EIP-3009 nor a Permit2 authorization");
      const now = BigInt(Math.floor(Date.now() / 1000));
      const row = await store.db
        .selectFrom("local_usdc_transfers")
        .select("tx_hash")
        .where("network", "=", lookup.requirements.network)
        .where("payer", "=", auth.from.toLowerCase())
        .where("nonce", "=", permit2 ? permit2NonceKey(permit2.nonce) : auth.nonce.toLowerCase())
        .where("status", "=", "success")
        .executeTakeFirst();
      if (row) return { state: "spent", transaction: row.tx_hash };
      if (now >= auth.validBefore) return { state: "expired" };
      return { state: "open", retryAfterSec: Math.min(30, Number(auth.validBefore - now) + 2) };
    },
  };
}
