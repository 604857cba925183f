// Development wallets kept in DATA_DIR: the pay-to address used with the local facilitator when
// PAY_TO_EVM (PAY_TO_SOLANA) is unset, the buyer CLI's key when BUYER_PRIVATE_KEY is unset, and the local
// facilitator's Solana fee payer when LOCAL_SOLANA_FEE_PAYER_KEY is unset. Each file is its owner's only (mode
// 0600) and holds no real funds.
import type { webcrypto } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { KeyPairSigner } from "@solana/kit";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type Config, ConfigError } from "../../config.ts";
import { SolanaSecretKeyError, solanaKeyPair } from "../shared/solana-secret-key.ts";

interface DevWallet {
  address: `0x${string}`;
  privateKey: `0x${string}`;
  created: boolean;
}

function loadOrCreate(file: string): DevWallet {
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { privateKey: `0x${string}` };
    return {
      privateKey: saved.privateKey,
      address: privateKeyToAccount(saved.privateKey).address,
      created: false,
    };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  fs.writeFileSync(
    file,
    `${JSON.stringify({ note: "development wallet; local facilitator only, holds no real funds", address, privateKey }, null, 2)}\n`,
    { mode: 0o600 },
  );
  return { address, privateKey, created: true };
}

export function devPayToWallet(dataDir: string): DevWallet {
  return loadOrCreate(path.join(dataDir, "dev-pay-to.json"));
}

export function devBuyerWallet(dataDir: string): DevWallet {
  return loadOrCreate(path.join(dataDir, "dev-buyer.json"));
}

/** A development Solana key pair; its secret is the 64 bytes (seed, then public key) wallets import, in base58. */
export interface DevSolanaWallet {
  signer: KeyPairSigner;
  address: string;
  created: boolean;
}

async function newSolanaSecret(): Promise<Uint8Array> {
  const pair = (await crypto.subtle.generateKey("Ed25519", true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const secret = new Uint8Array(64);
  secret.set(pkcs8.subarray(pkcs8.length - 32), 0);
  secret.set(publicKey, 32);
  return secret;
}

async function loadOrCreateSolana(file: string): Promise<DevSolanaWallet> {
  // Imported here: a node without a Solana network never needs @solana/kit (about 5 MB of resident memory).
  const { createKeyPairSignerFromBytes, getAddressDecoder, getBase58Decoder, getBase58Encoder } =
    await import("@solana/kit");
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { secretKey: string };
    const signer = await createKeyPairSignerFromBytes(
      Uint8Array.from(getBase58Encoder().encode(saved.secretKey)),
    );
    return { signer, address: signer.address, created: false };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = await newSolanaSecret();
  const address = getAddressDecoder().decode(secret.subarray(32));
  const note = "development Solana key; local facilitator only, holds no real funds";
  const secretKey = getBase58Decoder().decode(secret);
  // "wx": two processes starting at once keep one key; the loser reads the winner's file.
  try {
    fs.writeFileSync(file, `${JSON.stringify({ note, address, secretKey }, null, 2)}\n`, {
      mode: 0o600,
      flag: "wx",
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return loadOrCreateSolana(file);
    throw error;
  }
  const signer = await createKeyPairSignerFromBytes(secret);
  return { signer, address, created: true };
}

/** The local facilitator's Solana fee payer: the key that signs the fee-payer slot of every settled transaction. */
export function devSolanaFeePayer(dataDir: string): Promise<DevSolanaWallet> {
  return loadOrCreateSolana(path.join(dataDir, "dev-solana-fee-payer.json"));
}

/**
 * The key the local facilitator signs Solana fee-payer slots with: LOCAL_SOLANA_FEE_PAYER_KEY when set (a cluster's
 * nodes share it, as a buyer's transaction names one fee payer and may reach any node), else DATA_DIR's.
 */
export async function localSolanaFeePayer(
  config: Pick<Config, "localSolanaFeePayerKey" | "dataDir">,
): Promise<KeyPairSigner> {
  const secret = config.localSolanaFeePayerKey?.reveal();
  if (secret === undefined) return (await devSolanaFeePayer(config.dataDir)).signer;
  try {
    return await solanaKeyPair(secret);
  } catch (error) {
    if (error instanceof SolanaSecretKeyError)
      throw new ConfigError("LOCAL_SOLANA_FEE_PAYER_KEY", error.message);
    throw error;
  }
}

export function devSolanaPayTo(dataDir: string): Promise<DevSolanaWallet> {
  return loadOrCreateSolana(path.join(dataDir, "dev-solana-pay-to.json"));
}

export function devSolanaBuyer(dataDir: string): Promise<DevSolanaWallet> {
  return loadOrCreateSolana(path.join(dataDir, "dev-solana-buyer.json"));
}
