// A Coinbase CDP API key as the configuration holds it (CDP_API_KEY_ID, CDP_API_KEY_SECRET): checked when read,
// never printed, and able to sign the JWT of one facilitator call. The facilitator client that sends those
// calls is the seller's (seller/cdp-auth.ts).
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

// Loaded on the first signed call: only a server that uses CDP needs the SDK (about 200 modules with axios and
// the CDP SDK, which every other server would hold in memory for nothing).
let coinbaseSdk: Promise<typeof import("@coinbase/x402")> | undefined;
export const loadCoinbaseSdk = () => {
  coinbaseSdk ??= import("@coinbase/x402");
  return coinbaseSdk;
};

/** Coinbase's x402 facilitator (the x402 seller guide's first mainnet facilitator). */
export const CDP_FACILITATOR_URL = "https://api.cdp.coinbase.com/platform/v2/x402";

const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

type CdpKeyKind = "ed25519" | "ec";

/** Why a CDP secret cannot be used, phrased without any of its characters; undefined when it can. */
export class CdpKeyError extends Error {}

/**
 * The secret in the form the CDP SDK signs with: an Ed25519 key as base64 of seed‖public key (the public
 * half must match the seed), or an EC P-256 key as PKCS#8 PEM. A SEC1 "EC PRIVATE KEY" PEM (as older CDP
 * key files hold) is converted to PKCS#8, and literal "\n" sequences (from .env files) become newlines.
 */
function normaliseCdpSecret(raw: string): { kind: CdpKeyKind; secret: string } {
  const text = raw.trim().replace(/\\n/g, "\n");
  if (text.includes("-----BEGIN")) {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: text, format: "pem" });
    } catch {
      throw new CdpKeyError("is a PEM block that does not hold a readable private key");
    }
    if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
      throw new CdpKeyError("is a PEM key but not an EC P-256 (ES256) key");
    }
    return { kind: "ec", secret: key.export({ type: "pkcs8", format: "pem" }).toString() };
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) {
    throw new CdpKeyError("must be an Ed25519 key in base64 or an EC key in PEM");
  }
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== 64) {
    throw new CdpKeyError(
      `is base64 of ${bytes.length} bytes; an Ed25519 CDP key is 64 bytes (seed and public key)`,
    );
  }
  const derived = createPublicKey(
    createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(0, 32)]),
      format: "der",
      type: "pkcs8",
    }),
  )
    .export({ format: "der", type: "spki" })
    .subarray(-32);
  if (!derived.equals(bytes.subarray(32))) {
    throw new CdpKeyError("is 64 bytes but its public half does not belong to its seed");
  }
  return { kind: "ed25519", secret: text };
}

/** A CDP API key. The secret is a private field: it never shows in JSON, logs or inspected objects. */
export class CdpCredentials {
  readonly keyId: string;
  readonly kind: CdpKeyKind;
  readonly #secret: string;

  constructor(keyId: string, rawSecret: string) {
    const { kind, secret } = normaliseCdpSecret(rawSecret);
    this.keyId = keyId;
    this.kind = kind;
    this.#secret = secret;
  }

  /** `Bearer <JWT>` for one request: method, host (with a non-default port) and path as actually called. */
  async authorization(method: string, url: URL): Promise<string> {
    const { createAuthHeader } = await loadCoinbaseSdk();
    return createAuthHeader(this.keyId, this.#secret, method, url.host, url.pathname);
  }

  toJSON(): Record<string, string> {
    return { keyId: this.keyId, kind: this.kind, secret: "***" };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `CdpCredentials(${this.keyId}, ${this.kind}, secret ***)`;
  }
}
