// What a test-buy costs the caller: 0.01 USD for a price lookup; with a seller price P (at most 1 USD),
// P + 0.01 + 10 % of P, rounded up to the atomic unit. Deterministic, so the 402 and the paid retry agree.
import { atomicToUsd, usdToAtomic } from "../../../x402/shared/money.ts";

const LOOKUP_PRICE_USD = "0.01";
export const MAX_SELLER_PRICE_USD = "1";
const FEE_ATOMIC = 10_000n;

export function buyPriceUsd(sellerPriceUsd: string | undefined): string {
  if (sellerPriceUsd === undefined) return LOOKUP_PRICE_USD;
  const price = usdToAtomic(sellerPriceUsd);
  const tenPercent = (price + 9n) / 10n;
  return atomicToUsd(price + FEE_ATOMIC + tenPercent);
}

export const BUY_PRICE_FORMULA =
  "0.01 USD without price (a lookup); with price P (USD, at most 1): P + 0.01 + 10 % of P, rounded up to 0.000001";
