// The buyer's Solana key: BUYER_SOLANA_KEY (the base58 64-byte secret Solana wallets export: the Ed25519 seed,
// then the public key), else DATA_DIR/dev-buyer-solana.json, generated on first use like the EVM dev buyer.
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {
  createKeyPairSignerFromBytes,
  getBase58Decoder,
  getBase58Encoder,
  type KeyPairSigner,
} from "@solana/kit";
import { CliError } from "../cli-error.ts";

export const BUYER_SOLANA_KEY = "BUYER_SOLANA_KEY";
export const DEV_BUYER_SOLANA_FILE = "dev-buyer-solana.json";

/** The 64 bytes of a base58 secret, or a CliError naming the variable. */
function secretBytes(secret: string, origin: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(getBase58Encoder().encode(secret.trim()));
  } catch {
    throw new CliError(
      `${origin} must be a base58 Solana secret key (64 bytes), got characters outside base58`,
    );
  }
  if (bytes.length !== 64)
    throw new CliError(`${origin} must be a base58 Solana secret key of 64 bytes, got ${bytes.length} bytes`);
  return bytes;
}

async function signerOf(secret: string, origin: string): Promise<KeyPairSigner> {
  try {
    return await createKeyPairSignerFromBytes(secretBytes(secret, origin));
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Kit refuses a secret whose last 32 bytes are not the public key of its first 32.
    throw new CliError(
      `${origin} is not a valid Solana key pair: its public half does not match its secret half`,
    );
  }
}

/** A new Ed25519 key pair as the 64-byte secret Solana tools use (seed, then public key). */
function newSecret(): string {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return getBase58Decoder().decode(Uint8Array.from([...seed, ...pub]));
}

/** DATA_DIR/dev-buyer-solana.json, created (0600) when missing. */
export async function devSolanaBuyer(dataDir: string): Promise<{ signer: KeyPairSigner; created: boolean }> {
  const file = path.join(dataDir, DEV_BUYER_SOLANA_FILE);
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { secretKey?: string };
    return { signer: await signerOf(saved.secretKey ?? "", file), created: false };
  }
  const secretKey = newSecret();
  const signer = await signerOf(secretKey, file);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        note: "development Solana wallet; local facilitator only, holds no real funds",
        address: signer.address,
        secretKey,
      },
      null,
      2,
    )}\n`,
    { mode: 0o600 },
  );
  return { signer, created: true };
}

/** BUYER_SOLANA_KEY when set (validated), else the development key. */
export async function solanaBuyerSigner(
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ signer: KeyPairSigner; development: boolean }> {
  const secret = env[BUYER_SOLANA_KEY];
  if (secret !== undefined && secret !== "")
    return { signer: await signerOf(secret, BUYER_SOLANA_KEY), development: false };
  return { signer: (await devSolanaBuyer(dataDir)).signer, development: true };
}
