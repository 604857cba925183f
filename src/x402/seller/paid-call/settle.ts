// settle: the facilitator moves the money. From the moment it is asked, the payment may have moved: whatever
// fails next, its claim and pending row stay, and the chain decides the row.

import { SettleError, type SettleResponse } from "@x402/core/types";
import { errorText } from "../../../json.ts";
import { UPTO } from "../../shared/upto-payload.ts";
import type { PaidCall, Seller } from "./call.ts";

/** A facilitator answer that does not say whether the transfer happened: the chain decides. */
function settlementUndecided(settlement: SettleResponse, httpStatus?: number): boolean {
  return settlement.errorReason === "settlement_pending" || (httpStatus !== undefined && httpStatus >= 500);
}

export async function settle(seller: Seller, call: PaidCall): Promise<undefined> {
  const { request, payload, requirements, amount } = call;
  const started = performance.now();
  call.holdsClaim = false;
  call.verified = false;
  try {
    call.settlement = await seller.server.settlePayment(
      payload,
      requirements,
      request.extensions,
      undefined,
      requirements.scheme === UPTO ? { amount } : undefined,
    );
    if (!call.settlement.success && settlementUndecided(call.settlement)) {
      call.undecided = call.settlement.errorReason;
    }
  } catch (error) {
    call.settlement = {
      success: false,
      errorReason: error instanceof SettleError ? error.errorReason : undefined,
      errorMessage: error instanceof SettleError ? error.errorMessage : undefined,
      transaction: "",
      network: requirements.network,
    };
    if (!(error instanceof SettleError)) seller.events()?.facilitatorError("settle");
    if (!(error instanceof SettleError) || settlementUndecided(call.settlement, error.statusCode)) {
      call.undecided = errorText(error);
    }
  }
  report(seller, call, performance.now() - started);
  return undefined;
}

/** The settlement's time and outcome, and the facilitator's extension responses, to the paywall's events. */
function report(seller: Seller, call: PaidCall, ms: number): void {
  const { settlement, undecided } = call;
  const sku = call.request.product.sku;
  const events = seller.events();
  const extensionResponses = (settlement as { extensionResponses?: Record<string, unknown> })
    .extensionResponses;
  if (extensionResponses) events?.extensionResponses(sku, extensionResponses);
  events?.settleEnded(
    sku,
    call.requirements.network,
    ms,
    undecided !== undefined
      ? "unknown"
      : settlement.success
        ? undefined
        : (settlement.errorReason ?? "settlement_failed"),
  );
}
