// The pretend Solana chain's blocks: a block height that advances with the wall clock at mainnet's pace, and
// one blockhash per height. A blockhash carries its height (8 bytes) and a digest of network and height (24
// bytes), so any node decides alone whether a blockhash is one the pretend RPC issued and whether it is still
// valid; a forged hash fails the digest, a hash from the future is refused, and nothing needs storing.
import { createHash } from "node:crypto";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";

/** Mainnet produces about 2.5 blocks a second (400 ms slots). */
export const BLOCK_MS = 400;
/** A blockhash is valid for 150 blocks after its own (about 60 s here), as on mainnet. */
export const BLOCKHASH_VALID_BLOCKS = 150;
/** Height 0 of the pretend chain: mainnet-beta's launch, so heights and slots look like mainnet's. */
const GENESIS_MS = Date.parse("2020-03-16T14:29:00Z");
/** Mainnet's slots run ahead of its block heights (skipped slots); the pretend chain keeps a fixed gap. */
const SLOT_LEAD = 20_000_000;

export type Clock = () => number;

export function blockHeightAt(nowMs: number): number {
  return Math.floor((nowMs - GENESIS_MS) / BLOCK_MS);
}

export function slotOfHeight(height: number): number {
  return height + SLOT_LEAD;
}

/** The time a block of this height was produced (for blockTime). */
export function timeOfHeight(height: number): number {
  return GENESIS_MS + height * BLOCK_MS;
}

function digest(network: string, height: number): Uint8Array {
  return createHash("sha256").update(`paycall pretend solana|${network}|${height}`).digest().subarray(0, 24);
}

export function blockhashOf(network: string, height: number): string {
  const bytes = new Uint8Array(32);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(height));
  bytes.set(digest(network, height), 8);
  return getBase58Decoder().decode(bytes);
}

/** The height a blockhash was issued at, or undefined when the pretend chain never issued it. */
export function heightOfBlockhash(network: string, blockhash: string): number | undefined {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(getBase58Encoder().encode(blockhash));
  } catch {
    return undefined;
  }
  if (bytes.length !== 32) return undefined;
  const height = Number(new DataView(bytes.buffer).getBigUint64(0));
  if (!Number.isSafeInteger(height)) return undefined;
  const expected = digest(network, height);
  return expected.every((b, i) => bytes[8 + i] === b) ? height : undefined;
}

export interface LatestBlockhash {
  blockhash: string;
  lastValidBlockHeight: number;
  height: number;
}

export function latestBlockhash(network: string, nowMs: number): LatestBlockhash {
  const height = blockHeightAt(nowMs);
  return {
    blockhash: blockhashOf(network, height),
    lastValidBlockHeight: height + BLOCKHASH_VALID_BLOCKS,
    height,
  };
}

/** Why a transaction with this blockhash cannot land now, or undefined when it can. */
export function blockhashProblem(network: string, blockhash: string, nowMs: number): string | undefined {
  const height = heightOfBlockhash(network, blockhash);
  const current = blockHeightAt(nowMs);
  if (height === undefined || height > current) return `Blockhash not found: ${blockhash}`;
  if (current > height + BLOCKHASH_VALID_BLOCKS)
    return `blockhash ${blockhash} expired at block height ${height + BLOCKHASH_VALID_BLOCKS} (now ${current})`;
  return undefined;
}
