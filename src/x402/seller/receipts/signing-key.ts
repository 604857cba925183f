// The key that signs offers and receipts (JWS EdDSA: Ed25519, one of the offer-receipt extension's JWS
// algorithms; OpenSSL signs with it about fourteen times faster than with secp256k1, and a receipt is signed on
// every paid answer), and from which the key encrypting stored paid answers is derived. One 32-byte secret
// (the Ed25519 seed): RECEIPT_SIGNING_KEY, or generated once into DATA_DIR/receipt-signing.key (mode 0600).
// Every node of one deployment must share it.

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type JsonWebKey,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ensurePrivateDir } from "../../../store/private-files.ts";
import { KEY_PATTERN, type Secret, SigningKeyError } from "../../shared/signing-secret.ts";

export const SIGNING_KEY_FILE = "receipt-signing.key";
/** PKCS#8 DER of an Ed25519 private key, less its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface ReceiptKey {
  privateKey: KeyObject;
  /** The public key as a JWK (kty OKP, crv Ed25519, alg EdDSA), as published in the DID document. */
  publicJwk: JsonWebKey;
  /** First 16 hex digits of the SHA-256 of the public key: names the key in its kid. */
  fingerprint: string;
  /** AES-256 key for the paid answers kept for retries, derived from the signing key. */
  answerKey: Buffer;
  /** Where the key came from, for the start-up log (never the key). */
  source: "setting" | "data-dir-created" | "data-dir";
}

function fromSecret(secret: Buffer, source: ReceiptKey["source"]): ReceiptKey {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, secret]),
    format: "der",
    type: "pkcs8",
  });
  const publicKey = createPublicKey(privateKey);
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return {
    privateKey,
    publicJwk: { ...publicKey.export({ format: "jwk" }), alg: "EdDSA" },
    fingerprint: createHash("sha256").update(raw).digest("hex").slice(0, 16),
    answerKey: Buffer.from(
      hkdfSync("sha256", secret, Buffer.alloc(0), "paycall paid-answer encryption v1", 32),
    ),
    source,
  };
}

/**
 * Reads DATA_DIR's 32-byte secret `fileName`, or creates it (exclusively, so two processes starting together
 * agree on one). The batch-settlement receiver-authorizer key is kept the same way.
 */
export function loadOrCreateSecret(dataDir: string, fileName: string): { secret: Buffer; created: boolean } {
  const file = path.join(dataDir, fileName);
  ensurePrivateDir(dataDir, true);
  let created = false;
  try {
    const fd = fs.openSync(file, "wx", 0o600);
    try {
      fs.writeSync(fd, `0x${randomBytes(32).toString("hex")}\n`);
    } finally {
      fs.closeSync(fd);
    }
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const text = fs.readFileSync(file, "utf8").trim();
  if (!KEY_PATTERN.test(text)) {
    throw new SigningKeyError(
      `${file} does not hold a 0x-prefixed 32-byte hex key; remove it to make a new one`,
    );
  }
  return { secret: Buffer.from(text.slice(2), "hex"), created };
}

const loaded = new Map<string, ReceiptKey>();

/** The deployment's receipt key: the setting when given, else DATA_DIR's file. Loaded once per process. */
export function receiptKey(settings: { receiptSigningKey?: Secret; dataDir: string }): ReceiptKey {
  const configured = settings.receiptSigningKey?.reveal();
  const id = configured
    ? `setting:${createHash("sha256").update(configured).digest("hex")}`
    : settings.dataDir;
  let key = loaded.get(id);
  if (!key) {
    if (configured) {
      key = fromSecret(Buffer.from(configured.slice(2), "hex"), "setting");
    } else {
      const { secret, created } = loadOrCreateSecret(settings.dataDir, SIGNING_KEY_FILE);
      key = fromSecret(secret, created ? "data-dir-created" : "data-dir");
    }
    loaded.set(id, key);
  }
  return key;
}
