// The secret that signs offers and receipts, as the configuration holds it (RECEIPT_SIGNING_KEY): checked when
// read, and never printed. The key made from it lives with the receipts (seller/receipts/signing-key.ts). The
// configuration holds LOCAL_SOLANA_FEE_PAYER_KEY in the same never-printed wrapper.

/** A 0x-prefixed 32-byte hex secret (the Ed25519 seed). */
export const KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;

/** Why a configured signing key cannot be used, phrased without any of its characters. */
export class SigningKeyError extends Error {}

/**
 * A secret that prints as "[redacted]" in logs, JSON and `util.inspect`, so a configuration logged whole
 * never shows it.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return "[redacted]";
  }
  toString(): string {
    return "[redacted]";
  }
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return "[redacted]";
  }
}

/** Checks RECEIPT_SIGNING_KEY: a 0x-prefixed 32-byte hex secret (the Ed25519 seed). */
export function parseSigningKey(raw: string): Secret {
  if (!KEY_PATTERN.test(raw)) {
    throw new SigningKeyError("must be a 0x-prefixed 32-byte hex secret (openssl rand -hex 32, with 0x)");
  }
  if (/^0x0+$/.test(raw)) throw new SigningKeyError("must be random, not zeros");
  return new Secret(raw.toLowerCase());
}
