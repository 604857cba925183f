// Families that declared themselves unavailable in this configuration: their paid routes say why instead of
// asking for a payment they cannot deliver on, their free routes answer and say why too.
import { type Family, type FamilyUnavailable, notConfigured, type Outcome } from "../catalog/product.ts";
import { handlerOutcome, type PaidOutcome } from "../x402/seller/paid-call/outcome.ts";

export type DisabledInfo = FamilyUnavailable & { family: string };

export function disabledBySku(families: Family[] = []): Map<string, DisabledInfo> {
  const bySku = new Map<string, DisabledInfo>();
  for (const family of families) {
    if (!family.unavailable) continue;
    for (const p of family.products) bySku.set(p.sku, { family: family.name, ...family.unavailable });
  }
  return bySku;
}

/** A paid route of a disabled family: refused before any payment is asked, since it cannot deliver. */
export function notConfiguredOutcome(disabled: DisabledInfo): PaidOutcome {
  return handlerOutcome(notConfigured(`The ${disabled.family} products are`, disabled.family, disabled));
}

/** A free route of a disabled family still answers, and says why the family is off. */
export function withNotConfigured(
  outcome: Outcome<unknown>,
  disabled: DisabledInfo | undefined,
): Outcome<unknown> {
  const body = outcome.body;
  if (!disabled || !body || typeof body !== "object" || Array.isArray(body)) return outcome;
  const { family, reason, fix, docs } = disabled;
  return {
    ...outcome,
    body: { ...body, notConfigured: { family, reason, fix, ...(docs ? { docs } : {}) } },
  } as Outcome<unknown>;
}
