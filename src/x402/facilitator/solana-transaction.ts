// What the pretend Solana chain reads of a wire transaction: its signers and signatures, its blockhash, and
// the instructions it would run, checked as the chain's programs would (compute budget, memo, SPL Token
// TransferChecked); any other program is not deployed on the pretend chain.
import {
  type Address,
  getAddressEncoder,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getProgramDerivedAddress,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  type ReadonlyUint8Array,
  type SignatureBytes,
  verifySignature,
} from "@solana/kit";

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
/** The runtime's ceiling on a transaction's compute units. */
const MAX_COMPUTE_UNITS = 1_400_000;
const TRANSFER_CHECKED = 12;
export const USDC_DECIMALS = 6;

/** A transaction the chain refuses: the message is the runtime's reason, as an RPC would report it. */
export class ChainRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainRefusal";
  }
}

interface Transfer {
  source: string;
  mint: string;
  destination: string;
  authority: string;
  amount: bigint;
  decimals: number;
}

export interface DecodedTransaction {
  messageBytes: Uint8Array;
  /** Signer addresses in order; the first pays the fee. */
  signers: string[];
  /** Base58 signature per signer, undefined where the slot is still empty. */
  signatures: (string | undefined)[];
  signatureBytes: (Uint8Array | undefined)[];
  blockhash: string;
  transfer: Transfer;
}

export function ataOf(owner: string, mint: string): Promise<string> {
  const encoder = getAddressEncoder();
  return getProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM as Address,
    seeds: [
      encoder.encode(owner as Address),
      encoder.encode(TOKEN_PROGRAM as Address),
      encoder.encode(mint as Address),
    ],
  }).then(([address]) => address.toString());
}

function u64(data: ReadonlyUint8Array, at: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true);
}

function checkComputeBudget(data: ReadonlyUint8Array): void {
  if (data[0] === 2 && data.length === 5) {
    const units = new DataView(data.buffer, data.byteOffset).getUint32(1, true);
    if (units > MAX_COMPUTE_UNITS)
      throw new ChainRefusal(`compute unit limit ${units} exceeds ${MAX_COMPUTE_UNITS}`);
    return;
  }
  if (data[0] === 3 && data.length === 9) return;
  throw new ChainRefusal("invalid compute budget instruction");
}

interface CompiledInstruction {
  programAddressIndex: number;
  accountIndices?: readonly number[];
  data?: ReadonlyUint8Array;
}

/** Runs each instruction's checks; returns the one TransferChecked. */
function readInstructions(
  instructions: readonly CompiledInstruction[],
  accounts: string[],
  feePayer: string,
): Transfer {
  const transfers: Transfer[] = [];
  for (const [index, ix] of instructions.entries()) {
    const program = accounts[ix.programAddressIndex];
    const keys = (ix.accountIndices ?? []).map((i) => accounts[i]);
    const data = ix.data ?? new Uint8Array();
    if (program === undefined || keys.some((k) => k === undefined))
      throw new ChainRefusal(`instruction ${index} names an account the message does not hold`);
    if (program === feePayer || keys.includes(feePayer))
      throw new ChainRefusal(
        `instruction ${index} uses the fee payer's account; the fee payer only pays fees`,
      );
    if (program === COMPUTE_BUDGET_PROGRAM) checkComputeBudget(data);
    else if (program === MEMO_PROGRAM) continue;
    else if (
      program === TOKEN_PROGRAM &&
      data[0] === TRANSFER_CHECKED &&
      data.length === 10 &&
      keys.length >= 4
    ) {
      const [source, mint, destination, authority] = keys as [string, string, string, string];
      transfers.push({
        source,
        mint,
        destination,
        authority,
        amount: u64(data, 1),
        decimals: data[9] as number,
      });
    } else
      throw new ChainRefusal(`instruction ${index}: program ${program} is not deployed on the local ledger`);
  }
  if (transfers.length !== 1)
    throw new ChainRefusal(
      `the transaction must hold exactly one TransferChecked, found ${transfers.length}`,
    );
  return transfers[0] as Transfer;
}

/** Decodes a base64 wire transaction; throws ChainRefusal when it is not one the chain can run. */
export function decodeTransaction(base64: string): DecodedTransaction {
  let wire: ReturnType<ReturnType<typeof getTransactionDecoder>["decode"]>;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
  try {
    wire = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
    message = getCompiledTransactionMessageDecoder().decode(wire.messageBytes);
  } catch {
    throw new ChainRefusal("failed to deserialize the transaction");
  }
  if ("addressTableLookups" in message && (message.addressTableLookups?.length ?? 0) > 0)
    throw new ChainRefusal("address lookup tables are not available on the local ledger");
  const accounts = message.staticAccounts.map((a) => a.toString());
  const signers = accounts.slice(0, message.header.numSignerAccounts);
  const feePayer = signers[0];
  if (!feePayer) throw new ChainRefusal("the transaction has no fee payer");
  const base58 = getBase58Decoder();
  const signatureBytes = signers.map((s) => {
    const bytes = wire.signatures[s as Address];
    return bytes?.some((b) => b !== 0) ? Uint8Array.from(bytes) : undefined;
  });
  const transfer = readInstructions(message.instructions, accounts, feePayer);
  if (!signers.includes(transfer.authority))
    throw new ChainRefusal("the transfer's authority did not sign the transaction");
  return {
    messageBytes: Uint8Array.from(wire.messageBytes),
    signers,
    signatures: signatureBytes.map((b) => (b ? base58.decode(b) : undefined)),
    signatureBytes,
    blockhash: message.lifetimeToken,
    transfer,
  };
}

/** Throws unless every signer's slot holds its valid Ed25519 signature of the message (the fee payer's too when `all`). */
export async function checkSignatures(tx: DecodedTransaction, all: boolean): Promise<void> {
  for (const [i, signer] of tx.signers.entries()) {
    if (i === 0 && !all) continue;
    const signature = tx.signatureBytes[i];
    let valid = false;
    if (signature?.length === 64) {
      try {
        const key = await getPublicKeyFromAddress(signer as Address);
        valid = await verifySignature(key, signature as SignatureBytes, tx.messageBytes);
      } catch {
        valid = false;
      }
    }
    if (!valid) throw new ChainRefusal(`signature verification failed for ${signer}`);
  }
}
