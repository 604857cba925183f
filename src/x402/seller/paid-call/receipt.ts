// The PAYMENT-RESPONSE of a settled payment, with the signed receipt of the answer it paid for.

import type { SettleResponse } from "@x402/core/types";
import { errorText } from "../../../json.ts";
import { encodePaymentResponse } from "../../shared/header-codec.ts";
import { receiptExtension, routeUrlOf } from "../receipts/issuer.ts";
import type { PaidRequest, Seller } from "./call.ts";

/** What the buyer is told of its settlement: as a value (`settlement`) and as the PAYMENT-RESPONSE (`header`). */
interface SignedSettlement {
  header: string;
  settlement: SettleResponse;
  receipt?: string;
}

/** The settlement as the buyer sees it: the facilitator's extension responses stay on the server. */
export function shownToBuyer(settlement: SettleResponse): SettleResponse {
  const { extensionResponses: _internal, ...shown } = settlement as SettleResponse & {
    extensionResponses?: unknown;
  };
  return shown;
}

function buyerFacing(settlement: SettleResponse): SignedSettlement {
  const shown = shownToBuyer(settlement);
  return { header: encodePaymentResponse(shown), settlement: shown };
}

/** The PAYMENT-RESPONSE of a settled payment, with a signed receipt of the answer when one can be made. */
export async function signedPaymentResponse(
  seller: Seller,
  settlement: SettleResponse,
  request: Pick<PaidRequest, "product">,
  responseSha256: string,
  payer: string | null,
  usage?: Record<string, number>,
): Promise<SignedSettlement> {
  if (!payer) return buyerFacing(settlement);
  try {
    const receipt = await seller.receipts.receipt({
      routeUrl: routeUrlOf(seller.config.publicUrl, request.product.path),
      payer,
      network: settlement.network,
      transaction: settlement.transaction,
      responseSha256,
      ...(usage && settlement.amount !== undefined ? { amount: settlement.amount, usage } : {}),
    });
    const extensions = { ...settlement.extensions, ...receiptExtension(receipt) };
    return { ...buyerFacing({ ...settlement, extensions }), receipt: receipt.signature };
  } catch (error) {
    seller.log.error({ sku: request.product.sku, err: errorText(error) }, "could not sign a receipt");
    return buyerFacing(settlement);
  }
}
