// When the 402 offers `upto` beside `exact`, and what an `upto` payment settles.
//
// x402 `specs/schemes/upto/scheme_upto_evm.md`: "the Client (user) authorizes a maximum amount, and the
// Facilitator (server) settles for the actual amount used at the end of the request"; "The settled amount MUST be
// <= the authorized maximum". The maximum is the product's price for the request (the chat: its max_tokens);
// the amount settled is the product's measure of what the call used.
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import type { AnyProduct, MeteredUse } from "../../catalog/product.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import { UPTO } from "../shared/upto-payload.ts";

/** The product is sold by use too (its dynamic price says so). */
export function billedByUse(product: AnyProduct): boolean {
  return typeof product.price !== "string" && product.price.billedByUse === true;
}

/**
 * The networks on which `upto` is offered: EVM networks whose facilitator lists the `upto` kind in its
 * /supported answer (read once by the resource server at start). A facilitator without it means exact only.
 */
export function uptoNetworks(server: x402ResourceServer, networks: NetworkInfo[]): NetworkInfo[] {
  return networks.filter((n) => n.kind === "evm" && server.getSupportedKind(2, n.caip2, UPTO) !== undefined);
}

/**
 * The atomic amount an `upto` payment settles: what the answer says it used, never above the authorized
 * maximum; the maximum when the answer measured nothing.
 */
export function uptoSettlementAmount(
  requirements: PaymentRequirements,
  used: MeteredUse | undefined,
): string {
  const maximum = BigInt(requirements.amount);
  if (!used || !/^\d+$/.test(used.amount)) return maximum.toString();
  const amount = BigInt(used.amount);
  return (amount < maximum ? amount : maximum).toString();
}
