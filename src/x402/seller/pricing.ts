// How a product is priced decides which schemes its 402 offers besides `exact`: a price fixed per call also
// `batch-settlement` (each voucher pays the same increment), a price billed by use also `upto`, a price that
// depends on the request (dynamic) only `exact`.
import type { AnyProduct } from "../../catalog/product.ts";
import { billedByUse } from "./upto-offer.ts";

export type Pricing = "fixed" | "dynamic" | "by-use";

export function pricingOf(product: AnyProduct): Pricing {
  if (typeof product.price === "string") return "fixed";
  return billedByUse(product) ? "by-use" : "dynamic";
}
