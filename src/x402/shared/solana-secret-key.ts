// A Solana key pair given as a setting: the base58 64-byte secret Solana wallets export (the Ed25519 seed, then the
// public key). BUYER_SOLANA_KEY and LOCAL_SOLANA_FEE_PAYER_KEY are read with it. A refusal quotes none of the
// secret's characters, and reads after the setting's name ("BUYER_SOLANA_KEY must be …"). Solana Kit comes with
// this module: only code that pays or settles on Solana imports it.
import { createKeyPairSignerFromBytes, getBase58Encoder, type KeyPairSigner } from "@solana/kit";

/** Why a secret is not a Solana key pair, phrased to follow the setting's name. */
export class SolanaSecretKeyError extends Error {}

function secretBytes(secret: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(getBase58Encoder().encode(secret.trim()));
  } catch {
    throw new SolanaSecretKeyError(
      "must be a base58 Solana secret key (64 bytes), got characters outside base58",
    );
  }
  if (bytes.length !== 64)
    throw new SolanaSecretKeyError(
      `must be a base58 Solana secret key of 64 bytes, got ${bytes.length} bytes`,
    );
  return bytes;
}

/** The key pair of a base58 64-byte secret, or a SolanaSecretKeyError. */
export async function solanaKeyPair(secret: string): Promise<KeyPairSigner> {
  const bytes = secretBytes(secret);
  try {
    return await createKeyPairSignerFromBytes(bytes);
  } catch {
    // Kit refuses a secret whose last 32 bytes are not the public key of its first 32.
    throw new SolanaSecretKeyError(
      "is not a valid Solana key pair: its public half does not match its secret half",
    );
  }
}
