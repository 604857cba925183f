// USDC amounts: USD decimal strings in config and prices, atomic units (6 decimals) on the wire.
const USDC_DECIMALS = 6;

/** Converts a USD decimal string ("2", "0.25", "1.000001") to atomic USDC units; throws on anything else. */
export function usdToAtomic(usd: string): bigint {
  const match = typeof usd === "string" ? /^(\d{1,15})(?:\.(\d{1,6}))?$/.exec(usd) : null;
  if (!match) {
    throw new Error(
      `invalid USD amount "${usd}": expected a non-negative decimal with at most 6 decimals, e.g. "10" or "0.25"`,
    );
  }
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(USDC_DECIMALS, "0");
  return BigInt(whole) * 10n ** BigInt(USDC_DECIMALS) + BigInt(fraction);
}

/** Formats atomic USDC units as a USD decimal string without trailing zeros ("1.5", "0.005", "12"). */
export function atomicToUsd(atomic: bigint): string {
  const negative = atomic < 0n;
  const abs = negative ? -atomic : atomic;
  const scale = 10n ** BigInt(USDC_DECIMALS);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(USDC_DECIMALS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
