// The test-buy itself: @x402/fetch with the service's wallet, through the SSRF-safe fetcher, allowed to sign
// only USDC on Base, scheme exact, at or below the caller's price (a seller raising its price between the
// look and the buy gets nothing).
import type { PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { PrivateKeyAccount } from "viem/accounts";
import { NETWORKS } from "../../../x402/shared/networks.ts";
import { asFetch } from "../fetcher/as-fetch.ts";
import { FetchFailedError, type SafeFetcher, type SafeResponse } from "../fetcher/safe-fetcher.ts";

export const BUY_NETWORK = NETWORKS.base;

export interface SellerReceipt {
  success: boolean;
  transaction: string;
  network: string;
  payer: string | null;
  amount: string | null;
  errorReason: string | null;
}

type PurchaseOutcome =
  /** The seller answered the paid request (any status). */
  | { kind: "answered"; response: SafeResponse; receipt: SellerReceipt | null; paid: true }
  /** The seller answered without asking for payment this time. */
  | { kind: "answered"; response: SafeResponse; receipt: SellerReceipt | null; paid: false }
  /** Nothing was signed: no option within the limits (the seller changed its price, network or asset). */
  | { kind: "not_signed"; reason: string }
  /** The seller stopped answering; if a signed payment had left, its outcome is unknown. */
  | { kind: "no_answer"; paymentSent: boolean; reason: string };

/** Only Base USDC, exact, and at most `maxAtomic`. */
function withinLimits(maxAtomic: bigint) {
  return (_version: number, requirements: PaymentRequirements[]): PaymentRequirements[] =>
    requirements.filter(
      (r) =>
        r.scheme === "exact" &&
        r.network === BUY_NETWORK.caip2 &&
        r.asset.toLowerCase() === BUY_NETWORK.usdc.address.toLowerCase() &&
        typeof r.amount === "string" &&
        /^\d+$/.test(r.amount) &&
        BigInt(r.amount) <= maxAtomic,
    );
}

function readReceipt(header: string | null): SellerReceipt | null {
  if (!header) return null;
  try {
    const decoded = decodePaymentResponseHeader(header);
    return {
      success: decoded.success,
      transaction: decoded.transaction,
      network: decoded.network,
      payer: decoded.payer ?? null,
      amount: decoded.amount ?? null,
      errorReason: decoded.errorReason ?? null,
    };
  } catch {
    return null;
  }
}

/** Buys `url` once. A URL the guard refuses (even on a redirect) throws FetchRefusedError. */
export async function buyOnce(
  url: string,
  fetcher: SafeFetcher,
  account: PrivateKeyAccount,
  maxAtomic: bigint,
): Promise<PurchaseOutcome> {
  const state = { paymentSent: false };
  let last: SafeResponse | undefined;
  const observed = asFetch(fetcher, {
    onRequest: (headers) => {
      if (headers["payment-signature"]) state.paymentSent = true;
    },
    onResponse: (response) => {
      last = response;
    },
  });
  const client = new x402Client()
    .register("eip155:*", new ExactEvmScheme(account))
    .registerPolicy(withinLimits(maxAtomic));
  let response: Response;
  try {
    response = await wrapFetchWithPayment(observed, client)(url, { method: "GET" });
  } catch (error) {
    if (error instanceof FetchFailedError) {
      return { kind: "no_answer", paymentSent: state.paymentSent, reason: `${error.kind}: ${error.message}` };
    }
    if (
      !state.paymentSent &&
      error instanceof Error &&
      /payment payload|payment requirements|policies/i.test(error.message)
    ) {
      return { kind: "not_signed", reason: error.message };
    }
    throw error;
  }
  if (!last) throw new Error("the payment wrapper answered without a request");
  const receipt = readReceipt(response.headers.get("payment-response"));
  return state.paymentSent
    ? { kind: "answered", response: last, receipt, paid: true }
    : { kind: "answered", response: last, receipt, paid: false };
}
