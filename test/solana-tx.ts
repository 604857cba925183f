// Hand-built exact-SVM payment transactions, laid out as the @x402/svm client lays them out (compute limit,
// compute price, TransferChecked, memo), with knobs to tamper with each part, for tests of what the local
// facilitator and its pretend chain refuse.
import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { ataOf, TOKEN_PROGRAM } from "../src/x402/facilitator/solana-transaction.ts";

const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111" as Address;
const MEMO = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address;
const SYSTEM = "11111111111111111111111111111111" as Address;

export interface PaymentTx {
  buyer: KeyPairSigner;
  feePayer: string;
  mint: string;
  payTo: string;
  amount: bigint;
  blockhash: string;
  decimals?: number;
  /** Instructions appended after the memo. */
  extra?: Instruction[];
}

function bytes(...parts: (number | bigint)[][]): Uint8Array {
  return Uint8Array.from(parts.flat().map(Number));
}

function le(value: bigint, size: number): number[] {
  return Array.from({ length: size }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));
}

/** A System Program transfer of lamports from the buyer: an instruction the exact scheme does not allow. */
export function systemTransfer(from: KeyPairSigner, to: string): Instruction {
  return {
    programAddress: SYSTEM,
    accounts: [
      { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from } as never,
      { address: to as Address, role: AccountRole.WRITABLE },
    ],
    data: bytes([2, 0, 0, 0], le(1000n, 8)),
  };
}

/** The base64 wire transaction, signed by the buyer, its fee-payer slot left empty. */
export async function paymentTransaction(tx: PaymentTx): Promise<string> {
  const source = await ataOf(tx.buyer.address, tx.mint);
  const destination = await ataOf(tx.payTo, tx.mint);
  const transfer: Instruction = {
    programAddress: TOKEN_PROGRAM as Address,
    accounts: [
      { address: source as Address, role: AccountRole.WRITABLE },
      { address: tx.mint as Address, role: AccountRole.READONLY },
      { address: destination as Address, role: AccountRole.WRITABLE },
      { address: tx.buyer.address, role: AccountRole.READONLY_SIGNER, signer: tx.buyer } as never,
    ],
    data: bytes([12], le(tx.amount, 8), [tx.decimals ?? 6]),
  };
  const instructions: Instruction[] = [
    { programAddress: COMPUTE_BUDGET, data: bytes([2], le(20_000n, 4)) },
    { programAddress: COMPUTE_BUDGET, data: bytes([3], le(1n, 8)) },
    transfer,
    { programAddress: MEMO, data: new TextEncoder().encode(crypto.randomUUID()) },
    ...(tx.extra ?? []),
  ];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(tx.feePayer as Address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: tx.blockhash as never, lastValidBlockHeight: 0n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
}

/** The same transaction with one byte of the buyer's signature (the second slot) flipped. */
export function withBadBuyerSignature(base64: string): string {
  const wire = Buffer.from(base64, "base64");
  // [signature count][fee payer's 64 bytes][buyer's 64 bytes][message]
  wire[1 + 64 + 10] = (wire[1 + 64 + 10] as number) ^ 0xff;
  return wire.toString("base64");
}
