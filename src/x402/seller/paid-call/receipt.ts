// The PAYMENT-RESPONSE of a settled payment, with the signed receipt of the answer it paid for.

import type { SettleResponse } from "@x402/core/types";
import { errorText } from "../../../json.ts";
import { encodePaymentResponse } from "../../shared/header-codec.ts";
import { receiptExtension, routeUrlOf } from "../receipts/issuer.ts";
import type { PaidRequest, Seller } from "./call.ts";

/** The PAYMENT-RESPONSE of a settled payment, with a signed receipt of the answer when one can be made. */
export async function signedPaymentResponse(
  seller: Seller,
  settlement: SettleResponse,
  request: Pick<PaidRequest, "product">,
  responseSha256: string,
  payer: string | null,
  usage?: Record<string, number>,
): Promise<{ header: string; receipt?: string }> {
  if (!payer) return { header: encodePaymentResponse(settlement) };
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
    return {
      header: encodePaymentResponse({ ...settlement, extensions }),
      receipt: receipt.signature,
    };
  } catch (error) {
    seller.log.error({ sku: request.product.sku, err: errorText(error) }, "could not sign a receipt");
    return { header: encodePaymentResponse(settlement) };
  }
}
