// The x402 batch-settlement contract on the local facilitator's pretend chain, so the SDK's batch-settlement
// facilitator (@x402/evm/batch-settlement/facilitator) deposits, claims, settles and refunds against the
// store's USDC ledger as it would on Base. What the pretend contract does, after x402's
// `specs/schemes/batch-settlement/scheme_batch_settlement_evm.md` and the contract ABI the SDK calls:
// - deposit(config, amount, collector, collectorData): through the ERC-3009 deposit collector only (no Permit2
//   collector is deployed here). The payer's `receiveWithAuthorization` is checked as FiatToken checks it
//   (time window, nonce keccak256(abi.encode(channelId, salt)) unused, real ECDSA over the token's EIP-712
//   domain, balance), then the amount moves from the payer to the contract's address on the ledger and the
//   channel's balance grows.
// - claimWithSignature(claims, signature): the receiver authorizer's ClaimBatch signature covers every row
//   (all rows share it); each row's voucher must recover to the payer authorizer (or the payer when zero);
//   a row's totalClaimed may not pass its voucher nor the channel's balance; a row at or below what is claimed
//   already changes nothing. No USDC moves: the receiver's claimed total grows.
// - settle(receiver, token): moves what the receiver claimed and has not settled from the contract to it, and
//   emits Settled(receiver, token, sender, amount).
// - refundWithSignature(config, amount, nonce, signature): the nonce must be the channel's refund nonce and
//   the Refund signature the receiver authorizer's; the nonce advances first, then min(amount, balance -
//   totalClaimed) moves back to the payer (nothing, when the channel is spent: the SDK's channel manager asks
//   for a zero refund then, and it only advances the nonce). A pending timed withdrawal shrinks by what was
//   refunded, and is cancelled when the refund covers it.
// - initiateWithdraw(config, amount), sent by the payer or its payer authorizer (the pretend EVM node takes their
//   signed transactions: evm-rpc.ts): the payer's timed withdrawal, at most balance - totalClaimed, one at a
//   time; finalizeWithdraw(config), by the same, once the channel's withdraw delay has passed since it was asked:
//   min(amount, balance - totalClaimed) moves back to the payer. Meanwhile the receiver may still claim.
// - multicall(calls): the calls above in order, all or nothing.
// - Reads: channels, pendingWithdrawals, refundNonce, receivers, getChannelId.
// Every transaction runs in one store transaction (LocalBatchContractRepository.transact); a revert undoes it.
import { randomUUID } from "node:crypto";
import {
  BATCH_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_DOMAIN,
  claimBatchTypes,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  refundTypes,
  voucherTypes,
} from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import {
  decodeAbiParameters,
  decodeFunctionData,
  encodeAbiParameters,
  type Hex,
  isAddressEqual,
  keccak256,
  parseAbi,
  recoverTypedDataAddress,
  stringToHex,
  type TypedDataDomain,
} from "viem";
import type { BatchChannel, LocalBatchContractRepository } from "../../store/local-batch-contract.ts";
import { EIP3009_AUTHORIZATION_FIELDS } from "../shared/eip3009.ts";
import { asAddress, asHex, asUint, LedgerRevertError, REVERT } from "./ledger-signer.ts";

export const BATCH_CONTRACT = asAddress(BATCH_SETTLEMENT_ADDRESS);
export const ERC3009_COLLECTOR = asAddress(ERC3009_DEPOSIT_COLLECTOR_ADDRESS);

/** The part of x402BatchSettlement's interface the pretend contract answers (types as the SDK's ABI has them). */
export const BATCH_CONTRACT_ABI = parseAbi([
  "struct ChannelConfig { address payer; address payerAuthorizer; address receiver; address receiverAuthorizer; address token; uint40 withdrawDelay; bytes32 salt; }",
  "struct Voucher { ChannelConfig channel; uint128 maxClaimableAmount; }",
  "struct VoucherClaim { Voucher voucher; bytes signature; uint128 totalClaimed; }",
  "function multicall(bytes[] data) returns (bytes[] results)",
  "function deposit(ChannelConfig config, uint128 amount, address collector, bytes collectorData)",
  "function claimWithSignature(VoucherClaim[] voucherClaims, bytes authorizerSignature)",
  "function settle(address receiver, address token)",
  "function refundWithSignature(ChannelConfig config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature)",
  "function initiateWithdraw(ChannelConfig config, uint128 amount)",
  "function finalizeWithdraw(ChannelConfig config)",
  "function getChannelId(ChannelConfig config) view returns (bytes32)",
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)",
  "function refundNonce(bytes32 channelId) view returns (uint256)",
  "function receivers(address receiver, address token) view returns (uint128 totalClaimed, uint128 totalSettled)",
  "event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)",
]);

/** The contract's bounds on a channel's withdraw delay: 15 minutes to 30 days. */
const MIN_WITHDRAW_DELAY = 900;
const MAX_WITHDRAW_DELAY = 2_592_000;
const ZERO = "0x0000000000000000000000000000000000000000";

const RECEIVE_WITH_AUTHORIZATION_TYPES = { ReceiveWithAuthorization: EIP3009_AUTHORIZATION_FIELDS } as const;

/** One EVM network's pretend batch-settlement contract and the USDC it holds. */
export interface BatchChain {
  contract: LocalBatchContractRepository;
  caip2: string;
  chainId: number;
  usdc: `0x${string}`;
  usdcDomain: { name: string; version: string };
  /** The account that sends the facilitator's transactions (Settled's sender). */
  sender: `0x${string}`;
  now: () => number;
}

interface ChannelConfig {
  payer: `0x${string}`;
  payerAuthorizer: `0x${string}`;
  receiver: `0x${string}`;
  receiverAuthorizer: `0x${string}`;
  token: `0x${string}`;
  withdrawDelay: number;
  salt: Hex;
}

/** What one transaction did, for its record and receipt. */
interface Effects {
  calls: string[];
  settled?: { receiver: string; token: string; amount: bigint };
}

function field(value: unknown, name: string): unknown {
  if (typeof value !== "object" || value === null) throw new LedgerRevertError("bad calldata");
  return (value as Record<string, unknown>)[name];
}

function asBytes32(value: unknown): Hex {
  const hex = asHex(value);
  if (hex.length !== 66) throw new LedgerRevertError("bad calldata");
  return hex;
}

function channelConfig(value: unknown): ChannelConfig {
  const withdrawDelay = asUint(field(value, "withdrawDelay"));
  if (withdrawDelay >= 2n ** 40n) throw new LedgerRevertError("bad calldata");
  return {
    payer: asAddress(field(value, "payer")),
    payerAuthorizer: asAddress(field(value, "payerAuthorizer")),
    receiver: asAddress(field(value, "receiver")),
    receiverAuthorizer: asAddress(field(value, "receiverAuthorizer")),
    token: asAddress(field(value, "token")),
    withdrawDelay: Number(withdrawDelay),
    salt: asBytes32(field(value, "salt")),
  };
}

function domain(chain: BatchChain): TypedDataDomain {
  return { ...BATCH_SETTLEMENT_DOMAIN, chainId: chain.chainId, verifyingContract: BATCH_CONTRACT };
}

export function channelIdOf(chain: BatchChain, config: ChannelConfig): Hex {
  return computeChannelId(config, chain.chainId);
}

/** The address that signed, or the invalid-signature revert when the signature does not recover at all. */
async function recovered(params: Parameters<typeof recoverTypedDataAddress>[0]): Promise<`0x${string}`> {
  try {
    return await recoverTypedDataAddress(params);
  } catch {
    throw new LedgerRevertError("InvalidSignature()");
  }
}

async function existingChannel(chain: BatchChain, channelId: Hex): Promise<BatchChannel> {
  const channel = await chain.contract.channel(chain.caip2, channelId);
  if (!channel) throw new LedgerRevertError("ChannelNotFound()");
  return channel;
}

/**
 * What a call does to the contract's state. Everything that needs no state (the arguments, every signature) is
 * checked before, outside the store transaction: a transaction holds the ledger's lock, and a hundred ECDSA
 * recoveries inside it would hold every other payment back.
 */
type StateChange = (chain: BatchChain, effects: Effects, txHash: Hex) => Promise<void>;

/** FiatToken's receiveWithAuthorization checks that need no state: the time window and the signature. */
async function receiveAuthorization(
  chain: BatchChain,
  config: ChannelConfig,
  amount: bigint,
  collectorData: Hex,
  channelId: Hex,
): Promise<Hex> {
  let decoded: readonly [bigint, bigint, bigint, Hex];
  try {
    decoded = decodeAbiParameters(
      [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }],
      collectorData,
    );
  } catch {
    throw new LedgerRevertError("bad calldata");
  }
  const [validAfter, validBefore, salt, signature] = decoded;
  const t = BigInt(chain.now());
  if (!(t > validAfter)) throw new LedgerRevertError(REVERT.notYetValid);
  if (!(t < validBefore)) throw new LedgerRevertError(REVERT.expired);
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [channelId, salt]));
  const signer = await recovered({
    domain: { ...chain.usdcDomain, chainId: chain.chainId, verifyingContract: chain.usdc },
    types: RECEIVE_WITH_AUTHORIZATION_TYPES,
    primaryType: "ReceiveWithAuthorization",
    message: { from: config.payer, to: ERC3009_COLLECTOR, value: amount, validAfter, validBefore, nonce },
    signature,
  });
  if (!isAddressEqual(signer, config.payer)) throw new LedgerRevertError(REVERT.invalidSignature);
  return nonce;
}

async function prepareDeposit(chain: BatchChain, args: readonly unknown[]): Promise<StateChange> {
  const config = channelConfig(args[0]);
  const amount = asUint(args[1]);
  const collector = asAddress(args[2]);
  if (amount === 0n) throw new LedgerRevertError("ZeroDeposit()");
  if (!isAddressEqual(config.token, chain.usdc)) throw new LedgerRevertError("call to a non-contract token");
  if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY)
    throw new LedgerRevertError("InvalidWithdrawDelay()");
  if (isAddressEqual(config.receiverAuthorizer, ZERO))
    throw new LedgerRevertError("InvalidReceiverAuthorizer()");
  if (!isAddressEqual(collector, ERC3009_COLLECTOR))
    throw new LedgerRevertError(`the local chain has no deposit collector at ${collector}`);
  const channelId = channelIdOf(chain, config);
  const authNonce = await receiveAuthorization(chain, config, amount, asHex(args[3]), channelId);
  return async (state, _effects, txHash) => {
    const { contract, caip2 } = state;
    if (await contract.usdcNonceUsed(caip2, config.payer, authNonce))
      throw new LedgerRevertError(REVERT.used);
    const moved = await contract.moveUsdc({
      network: caip2,
      payer: config.payer,
      payTo: BATCH_CONTRACT,
      amount,
      nonce: authNonce,
      txHash: keccak256(`${txHash}${channelId.slice(2)}`),
    });
    if (!moved) throw new LedgerRevertError(REVERT.balance);
    const channel = await contract.channel(caip2, channelId);
    await contract.putChannel(caip2, channelId, {
      payer: config.payer,
      receiver: config.receiver,
      token: config.token,
      balance: (channel?.balance ?? 0n) + amount,
      totalClaimed: channel?.totalClaimed ?? 0n,
      refundNonce: channel?.refundNonce ?? 0n,
      withdrawal: channel?.withdrawal,
    });
  };
}

interface ClaimRow {
  config: ChannelConfig;
  channelId: Hex;
  maxClaimableAmount: bigint;
  signature: Hex;
  totalClaimed: bigint;
}

function claimRows(chain: BatchChain, value: unknown): ClaimRow[] {
  if (!Array.isArray(value) || value.length === 0) throw new LedgerRevertError("EmptyClaims()");
  return value.map((row) => {
    const voucher = field(row, "voucher");
    const config = channelConfig(field(voucher, "channel"));
    return {
      config,
      channelId: channelIdOf(chain, config),
      maxClaimableAmount: asUint(field(voucher, "maxClaimableAmount")),
      signature: asHex(field(row, "signature")),
      totalClaimed: asUint(field(row, "totalClaimed")),
    };
  });
}

async function checkVoucher(chain: BatchChain, row: ClaimRow): Promise<void> {
  const expected = isAddressEqual(row.config.payerAuthorizer, ZERO)
    ? row.config.payer
    : row.config.payerAuthorizer;
  const signer = await recovered({
    domain: domain(chain),
    types: voucherTypes,
    primaryType: "Voucher",
    message: { channelId: row.channelId, maxClaimableAmount: row.maxClaimableAmount },
    signature: row.signature,
  });
  if (!isAddressEqual(signer, expected)) throw new LedgerRevertError("InvalidVoucherSignature()");
  if (row.totalClaimed > row.maxClaimableAmount) throw new LedgerRevertError("ClaimExceedsVoucher()");
}

async function prepareClaim(chain: BatchChain, args: readonly unknown[]): Promise<StateChange> {
  const rows = claimRows(chain, args[0]);
  const authorizer = rows[0]?.config.receiverAuthorizer as `0x${string}`;
  if (rows.some((row) => !isAddressEqual(row.config.receiverAuthorizer, authorizer)))
    throw new LedgerRevertError("ReceiverAuthorizerMismatch()");
  const signer = await recovered({
    domain: domain(chain),
    types: claimBatchTypes,
    primaryType: "ClaimBatch",
    message: {
      claims: rows.map((r) => ({
        channelId: r.channelId,
        maxClaimableAmount: r.maxClaimableAmount,
        totalClaimed: r.totalClaimed,
      })),
    },
    signature: asHex(args[1]),
  });
  if (!isAddressEqual(signer, authorizer)) throw new LedgerRevertError("InvalidAuthorizerSignature()");
  for (const row of rows) await checkVoucher(chain, row);
  return async (state) => {
    for (const row of rows) await claimOne(state, row);
  };
}

async function claimOne(chain: BatchChain, row: ClaimRow): Promise<void> {
  const channel = await existingChannel(chain, row.channelId);
  if (row.totalClaimed > channel.balance) throw new LedgerRevertError("ClaimExceedsBalance()");
  if (row.totalClaimed <= channel.totalClaimed) return;
  const increase = row.totalClaimed - channel.totalClaimed;
  await chain.contract.putChannel(chain.caip2, row.channelId, { ...channel, totalClaimed: row.totalClaimed });
  const { receiver, token } = row.config;
  const totals = await chain.contract.receiver(chain.caip2, receiver, token);
  await chain.contract.putReceiver(chain.caip2, receiver, token, {
    ...totals,
    totalClaimed: totals.totalClaimed + increase,
  });
}

function prepareSettle(args: readonly unknown[]): StateChange {
  const receiver = asAddress(args[0]);
  const token = asAddress(args[1]);
  return async ({ contract, caip2 }, effects, txHash) => {
    const totals = await contract.receiver(caip2, receiver, token);
    const amount = totals.totalClaimed - totals.totalSettled;
    if (amount > 0n) {
      const moved = await contract.moveUsdc({
        network: caip2,
        payer: BATCH_CONTRACT,
        payTo: receiver,
        amount,
        nonce: `batch-settle:${txHash}`,
        txHash: keccak256(`${txHash}01`),
      });
      if (!moved) throw new LedgerRevertError(REVERT.balance);
      await contract.putReceiver(caip2, receiver, token, { ...totals, totalSettled: totals.totalClaimed });
    }
    effects.settled = { receiver, token, amount };
  };
}

/**
 * Moves up to `asked` of a channel's unclaimed balance (balance - totalClaimed) from the contract back to its
 * payer: a refund or a finalized withdrawal. Returns what moved.
 */
async function returnUnclaimed(
  state: BatchChain,
  channel: BatchChannel,
  channelId: Hex,
  asked: bigint,
  tx: { kind: "refund" | "withdraw"; txHash: Hex },
): Promise<bigint> {
  const available = channel.balance - channel.totalClaimed;
  const amount = asked < available ? asked : available;
  if (amount <= 0n) return 0n;
  const moved = await state.contract.moveUsdc({
    network: state.caip2,
    payer: BATCH_CONTRACT,
    payTo: channel.payer,
    amount,
    nonce: `batch-${tx.kind}:${tx.txHash}:${channelId}`,
    txHash: keccak256(`${tx.txHash}${channelId.slice(2)}${tx.kind === "refund" ? "02" : "03"}`),
  });
  if (!moved) throw new LedgerRevertError(REVERT.balance);
  return amount;
}

async function prepareRefund(chain: BatchChain, args: readonly unknown[]): Promise<StateChange> {
  const config = channelConfig(args[0]);
  const amount = asUint(args[1]);
  const nonce = asUint(args[2]);
  const channelId = channelIdOf(chain, config);
  const signer = await recovered({
    domain: domain(chain),
    types: refundTypes,
    primaryType: "Refund",
    message: { channelId, nonce, amount },
    signature: asHex(args[3]),
  });
  if (!isAddressEqual(signer, config.receiverAuthorizer))
    throw new LedgerRevertError("InvalidAuthorizerSignature()");
  return async (state, _effects, txHash) => {
    const channel = await existingChannel(state, channelId);
    if (nonce !== channel.refundNonce) throw new LedgerRevertError("InvalidRefundNonce()");
    const refunded = await returnUnclaimed(state, channel, channelId, amount, { kind: "refund", txHash });
    const pending = channel.withdrawal;
    await state.contract.putChannel(state.caip2, channelId, {
      ...channel,
      balance: channel.balance - refunded,
      refundNonce: channel.refundNonce + 1n,
      withdrawal:
        pending && refunded < pending.amount ? { ...pending, amount: pending.amount - refunded } : undefined,
    });
  };
}

/** A timed withdrawal is the payer's: sent by the payer or by its payer authorizer. */
function payerSent(config: ChannelConfig, sender: `0x${string}`): void {
  const authorizer =
    !isAddressEqual(config.payerAuthorizer, ZERO) && isAddressEqual(sender, config.payerAuthorizer);
  if (!isAddressEqual(sender, config.payer) && !authorizer) throw new LedgerRevertError("NotPayer()");
}

function prepareInitiateWithdraw(args: readonly unknown[], sender: `0x${string}`): StateChange {
  const config = channelConfig(args[0]);
  const amount = asUint(args[1]);
  payerSent(config, sender);
  if (amount === 0n) throw new LedgerRevertError("ZeroAmount()");
  return async (state) => {
    const channelId = channelIdOf(state, config);
    const channel = await existingChannel(state, channelId);
    if (channel.withdrawal) throw new LedgerRevertError("WithdrawalAlreadyPending()");
    if (amount > channel.balance - channel.totalClaimed)
      throw new LedgerRevertError("WithdrawExceedsBalance()");
    await state.contract.putChannel(state.caip2, channelId, {
      ...channel,
      withdrawal: { amount, initiatedAt: BigInt(state.now()) },
    });
  };
}

function prepareFinalizeWithdraw(args: readonly unknown[], sender: `0x${string}`): StateChange {
  const config = channelConfig(args[0]);
  payerSent(config, sender);
  return async (state, _effects, txHash) => {
    const channelId = channelIdOf(state, config);
    const channel = await existingChannel(state, channelId);
    const pending = channel.withdrawal;
    if (!pending) throw new LedgerRevertError("NoPendingWithdrawal()");
    if (BigInt(state.now()) < pending.initiatedAt + BigInt(config.withdrawDelay))
      throw new LedgerRevertError("WithdrawDelayNotElapsed()");
    const amount = await returnUnclaimed(state, channel, channelId, pending.amount, {
      kind: "withdraw",
      txHash,
    });
    await state.contract.putChannel(state.caip2, channelId, {
      ...channel,
      balance: channel.balance - amount,
      withdrawal: undefined,
    });
  };
}

/** A multicall's calls, each checked; run in order, all or nothing. */
async function prepareMulticall(
  chain: BatchChain,
  args: readonly unknown[],
  sender: `0x${string}`,
): Promise<StateChange> {
  if (!Array.isArray(args[0])) throw new LedgerRevertError("bad calldata");
  const changes: StateChange[] = [];
  for (const data of args[0]) {
    let decoded: { functionName: string; args?: readonly unknown[] };
    try {
      decoded = decodeFunctionData({ abi: BATCH_CONTRACT_ABI, data: asHex(data) });
    } catch {
      throw new LedgerRevertError("bad calldata");
    }
    changes.push(await prepare(chain, decoded.functionName, decoded.args ?? [], sender));
  }
  return async (state, effects, txHash) => {
    for (const change of changes) await change(state, effects, txHash);
  };
}

async function prepare(
  chain: BatchChain,
  functionName: string,
  args: readonly unknown[],
  sender: `0x${string}`,
): Promise<StateChange> {
  let change: StateChange;
  switch (functionName) {
    case "deposit":
      change = await prepareDeposit(chain, args);
      break;
    case "claimWithSignature":
      change = await prepareClaim(chain, args);
      break;
    case "settle":
      change = prepareSettle(args);
      break;
    case "refundWithSignature":
      change = await prepareRefund(chain, args);
      break;
    case "initiateWithdraw":
      change = prepareInitiateWithdraw(args, sender);
      break;
    case "finalizeWithdraw":
      change = prepareFinalizeWithdraw(args, sender);
      break;
    case "multicall":
      change = await prepareMulticall(chain, args, sender);
      break;
    default:
      throw new LedgerRevertError(`the local batch-settlement contract cannot execute ${functionName}`);
  }
  return async (state, effects, txHash) => {
    effects.calls.push(functionName);
    await change(state, effects, txHash);
  };
}

export const BATCH_WRITES = new Set([
  "deposit",
  "claimWithSignature",
  "settle",
  "refundWithSignature",
  "initiateWithdraw",
  "finalizeWithdraw",
  "multicall",
]);

/** Deterministic-looking, unique pretend transaction hash. */
function newTxHash(caip2: string): Hex {
  return keccak256(stringToHex(`${caip2}:batch-settlement:${randomUUID()}`));
}

/**
 * Executes a state-changing call as one transaction sent by `sender` (the facilitator's account unless a payer
 * sent it); returns its hash, or throws its revert.
 */
export async function executeBatchCall(
  chain: BatchChain,
  functionName: string,
  args: readonly unknown[],
  sender: `0x${string}` = chain.sender,
): Promise<Hex> {
  const change = await prepare(chain, functionName, args, sender);
  const txHash = newTxHash(chain.caip2);
  return chain.contract.transact(async (contract) => {
    const effects: Effects = { calls: [] };
    await change({ ...chain, contract }, effects, txHash);
    await contract.recordTransaction(chain.caip2, txHash, effects);
    return txHash;
  });
}

class Simulated extends Error {}

/** Runs a state-changing call and undoes it: throws its revert, or returns when it would succeed. */
export async function simulateBatchCall(
  chain: BatchChain,
  functionName: string,
  args: readonly unknown[],
): Promise<void> {
  const change = await prepare(chain, functionName, args, chain.sender);
  try {
    await chain.contract.transact(async (contract) => {
      await change({ ...chain, contract }, { calls: [] }, newTxHash(chain.caip2));
      throw new Simulated();
    });
  } catch (error) {
    if (!(error instanceof Simulated)) throw error;
  }
}

/** One view call of the pretend contract. */
export async function readBatchContract(
  chain: BatchChain,
  functionName: string,
  args: readonly unknown[],
): Promise<unknown> {
  switch (functionName) {
    case "channels": {
      const channel = await chain.contract.channel(chain.caip2, asBytes32(args[0]));
      return [channel?.balance ?? 0n, channel?.totalClaimed ?? 0n];
    }
    case "pendingWithdrawals": {
      const pending = (await chain.contract.channel(chain.caip2, asBytes32(args[0])))?.withdrawal;
      return [pending?.amount ?? 0n, Number(pending?.initiatedAt ?? 0n)];
    }
    case "refundNonce":
      return (await chain.contract.channel(chain.caip2, asBytes32(args[0])))?.refundNonce ?? 0n;
    case "receivers": {
      const totals = await chain.contract.receiver(chain.caip2, asAddress(args[0]), asAddress(args[1]));
      return [totals.totalClaimed, totals.totalSettled];
    }
    case "getChannelId":
      return channelIdOf(chain, channelConfig(args[0]));
    default:
      if (BATCH_WRITES.has(functionName)) return simulateBatchCall(chain, functionName, args);
      throw new LedgerRevertError(`the local batch-settlement contract has no function ${functionName}`);
  }
}
