// A FacilitatorSvmSigner whose "chain" is the store's pretend USDC ledger: the SDK's exact-SVM facilitator
// verifies and settles against it as against a Solana cluster, but no real money moves. Simulation runs the
// chain's checks and the balance; send checks every signature again, then moves the USDC and records the
// transaction (its fee payer's signature) in one store transaction, so no transaction lands twice, on one
// node or several sharing the database; confirm reads the record.
import { getBase64Decoder, getTransactionEncoder, type KeyPairSigner, signBytes } from "@solana/kit";
import { type FacilitatorSvmSigner, TransactionOnchainFailureError } from "@x402/svm";
import { errorText } from "../../json.ts";
import type { Store } from "../../store/store.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import { serialized } from "./ledger-signer.ts";
import { blockhashProblem, type Clock } from "./solana-blocks.ts";
import {
  ataOf,
  ChainRefusal,
  checkSignatures,
  type DecodedTransaction,
  decodeTransaction,
  USDC_DECIMALS,
} from "./solana-transaction.ts";

interface SolanaLedgerOptions {
  feePayer: KeyPairSigner;
  now?: Clock;
}

export interface SolanaLedger {
  signer: FacilitatorSvmSigner;
  /** Makes the owner's USDC token account known to the chain (a pay-to it may be paid at). */
  openTokenAccount(owner: string): Promise<void>;
}

/** One Solana network's pretend chain: what every ledger step needs to know about it. */
interface SolanaChain {
  store: Store;
  network: NetworkInfo;
  caip2: string;
  mint: string;
  feePayer: KeyPairSigner;
  now: Clock;
  /** Token account → owner, for the associated token accounts the chain knows. */
  owners: Map<string, string>;
}

/** The chain's checks of a transaction before it runs; returns the owner the USDC goes to. */
async function checkTransaction(chain: SolanaChain, tx: DecodedTransaction): Promise<string> {
  const { store, caip2, mint } = chain;
  const problem = blockhashProblem(caip2, tx.blockhash, chain.now());
  if (problem) throw new ChainRefusal(problem);
  const { transfer } = tx;
  const buyerSignature = tx.signatures[tx.signers.indexOf(transfer.authority)];
  if (buyerSignature && (await store.localUsdc.nonceUsed(caip2, transfer.authority, buyerSignature)))
    throw new ChainRefusal("This transaction has already been processed");
  if (transfer.authority === chain.feePayer.address)
    throw new ChainRefusal("the fee payer may not be the transfer's authority");
  if (transfer.mint !== mint)
    throw new ChainRefusal(`mint ${transfer.mint} is not USDC on ${chain.network.name}`);
  if (transfer.decimals !== USDC_DECIMALS)
    throw new ChainRefusal(
      `custom program error: 0x12 (decimals ${transfer.decimals} ≠ the mint's ${USDC_DECIMALS})`,
    );
  if (transfer.source !== (await ataOf(transfer.authority, mint)))
    throw new ChainRefusal("the source is not the authority's USDC token account");
  const payTo = chain.owners.get(transfer.destination);
  if (!payTo) throw new ChainRefusal(`destination token account ${transfer.destination} does not exist`);
  const balance = await store.localUsdc.balance(caip2, transfer.authority);
  if (balance < transfer.amount)
    throw new ChainRefusal(`custom program error: 0x1 (insufficient funds: ${balance} < ${transfer.amount})`);
  return payTo;
}

async function sendTransaction(chain: SolanaChain, base64: string): Promise<string> {
  const { store, caip2 } = chain;
  const tx = decodeTransaction(base64);
  await checkSignatures(tx, true);
  const id = tx.signatures[0] as string;
  return serialized(store, caip2, async () => {
    if ((await store.localUsdc.transferStatus(id)) !== undefined)
      throw new ChainRefusal("This transaction has already been processed");
    const payTo = await checkTransaction(chain, tx);
    const { transfer } = tx;
    const nonce = tx.signatures[tx.signers.indexOf(transfer.authority)] as string;
    try {
      await store.localUsdc.transfer({
        network: caip2,
        payer: transfer.authority,
        payTo,
        amount: transfer.amount,
        nonce,
        txHash: id,
      });
    } catch (error) {
      // Another node sharing the database recorded this transaction first.
      throw new ChainRefusal(`This transaction has already been processed (${errorText(error)})`);
    }
    return id;
  });
}

/** The transaction with the fee payer's signature added, as base64 wire bytes. */
async function signAsFeePayer(feePayer: KeyPairSigner, base64: string): Promise<string> {
  const tx = decodeTransaction(base64);
  const wire = getTransactionEncoder();
  const signature = await signBytes(feePayer.keyPair.privateKey, tx.messageBytes);
  const signatures = Object.fromEntries(tx.signers.map((s, i) => [s, tx.signatureBytes[i] ?? null]));
  signatures[feePayer.address] = signature;
  const transaction = { messageBytes: tx.messageBytes, signatures };
  const bytes = wire.encode(transaction as unknown as Parameters<typeof wire.encode>[0]);
  return getBase64Decoder().decode(bytes);
}

/**
 * The ledger of one Solana network. Balances are kept per owner address; the chain maps a token account to
 * its owner for the associated token accounts it knows (every payer's own, and each pay-to opened).
 */
export function createSolanaLedger(
  store: Store,
  network: NetworkInfo,
  options: SolanaLedgerOptions,
): SolanaLedger {
  if (network.kind !== "svm") throw new Error(`${network.name} is not a Solana network`);
  const { feePayer } = options;
  const chain: SolanaChain = {
    store,
    network,
    caip2: network.caip2,
    mint: network.usdc.address,
    feePayer,
    now: options.now ?? Date.now,
    owners: new Map(),
  };

  const signer: FacilitatorSvmSigner = {
    getAddresses: () => [feePayer.address],

    async signTransaction(base64, payer) {
      if (payer !== feePayer.address) throw new Error(`no key for fee payer ${payer}`);
      return signAsFeePayer(feePayer, base64);
    },

    async simulateTransaction(base64) {
      const tx = decodeTransaction(base64);
      await checkSignatures(tx, false);
      await checkTransaction(chain, tx);
    },

    sendTransaction: (base64) => sendTransaction(chain, base64),

    async confirmTransaction(signature) {
      const status = await store.localUsdc.transferStatus(signature);
      if (status === "success") return;
      if (status === "reverted")
        throw new TransactionOnchainFailureError("custom program error: 0x1 (insufficient funds)");
      throw new Error(`transaction ${signature} not found on the local ${network.name} ledger`);
    },
  };
  async function openTokenAccount(owner: string): Promise<void> {
    chain.owners.set(await ataOf(owner, chain.mint), owner);
  }
  return { signer, openTokenAccount };
}
