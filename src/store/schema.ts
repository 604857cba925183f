// Table types shared by every store implementation. Timestamps are ISO 8601 UTC strings; JSON is text.
import type { Generated } from "kysely";

interface CacheDocumentTable {
  family: string;
  key: string;
  body: string;
  fetched_at: string;
  expires_at: string | null;
  etag: string | null;
  last_modified: string | null;
  recorded_sample: number;
}

/**
 * pending: written just before the facilitator is asked to settle; resolved right after. A row left pending
 * means the process stopped in between. unknown: the facilitator did not say how the settlement went. Both
 * are decided by the chain (never by settling again): settled when the authorization was spent, failed when
 * it expired unspent.
 */
export const LEDGER_STATES = ["pending", "settled", "failed", "unknown"] as const;
export type LedgerState = (typeof LEDGER_STATES)[number];

export interface LedgerTable {
  id: Generated<number>;
  created_at: string;
  sku: string;
  request_hash: string;
  network: string;
  payer: string | null;
  amount: string;
  asset: string;
  pay_to: string;
  transaction: string | null;
  response_sha256: string;
  state: LedgerState;
  error_reason: string | null;
  payment_payload: string | null;
  requirements: string | null;
  reconciled_at: string | null;
  /** The payment's identity (payment-identity.ts), to find this row when the buyer presents it again. */
  nonce_key: string | null;
  /** 1 once the answer was handed to the buyer; settled and 0 for a day means a refund is due. */
  delivered: Generated<number>;
  /** The answer, kept while the settlement is uncertain, for the buyer's retry once the chain confirms it. */
  held_response: string | null;
  chain_checked_at: string | null;
  /** Why the last on-chain check could not be made (RPC unreachable); null after a check that answered. */
  chain_error: string | null;
  /** A batch-settlement voucher's channel (lower-case hex) and the cumulative total it signed. */
  batch_channel: string | null;
  batch_cumulative: string | null;
}

interface NonceClaimTable {
  nonce_key: string;
  claimed_at: string;
  sku: string;
}

export type JobState = "queued" | "running" | "done" | "dead";

export interface JobTable {
  id: Generated<number>;
  queue: string;
  key: string;
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: string;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** "fetch" | "warm" | "bulk" (JobLane): which worker slots take it. */
  lane: Generated<string>;
  /** Set by each claim: only the holder of the current claim may heartbeat, finish or hand back the job. */
  lease_id: string | null;
}

interface WarmerRunTable {
  id: Generated<number>;
  warmer: string;
  started_at: string;
  finished_at: string | null;
  ok: number | null;
  error: string | null;
  counts: string | null;
}

interface SampleCounterTable {
  bucket: string;
  count: number;
  expires_at: string;
}

interface LocalUsdcBalanceTable {
  network: string;
  address: string;
  atomic: string;
}

export interface LocalUsdcTransferTable {
  tx_hash: string;
  network: string;
  payer: string;
  pay_to: string;
  amount: string;
  nonce: string;
  status: "success" | "reverted";
  created_at: string;
}

export interface SaleTable {
  id: Generated<number>;
  domain: string;
  price_usdc: string;
  payer: string | null;
  network: string;
  transaction: string | null;
  status: string;
  created_at: string;
}

interface LeaseTable {
  name: string;
  holder: string;
  expires_at: string;
}

interface UpstreamBudgetTable {
  upstream: string;
  /** Epoch milliseconds before which no request to this upstream may start, cluster-wide. */
  next_start_ms: number;
  /** Epoch ms before which no request of this budget starts, on any node (an upstream-imposed pause). */
  paused_until_ms: number | null;
  pause_reason: string | null;
}

/** One of an upstream's maxConcurrent slots, held by one request in flight on some node. */
interface UpstreamSlotTable {
  upstream: string;
  slot: number;
  holder: string | null;
  /** Epoch ms after which the hold is void (its node died mid-request). */
  expires_ms: number;
}

/** One request start booked against a budget with sliding-window limits (pruned after a day). */
interface UpstreamRequestTable {
  budget: string;
  start_ms: number;
  /** 1 when booked by background work (a warmer), which may use only a share of each window. */
  background: number;
}

/** A refund the operator recorded for a ledger row (paycall moves no money; this only remembers it). */
interface LedgerRefundTable {
  ledger_id: number;
  transaction: string;
  /** Atomic units refunded. */
  amount: string;
  note: string | null;
  recorded_at: string;
}

/**
 * 402s, paid calls, free samples, the facilitator's Bazaar verdicts after settlement (listed or not), and paid
 * requests refused as busy (PAID_CALLS_MAX_IN_FLIGHT).
 */
export const DAILY_COUNT_KINDS = ["challenge", "paid", "sample", "indexed", "index_refused", "busy"] as const;
export type DailyCountKind = (typeof DAILY_COUNT_KINDS)[number];

/** Per product and UTC day (YYYY-MM-DD): 402 challenges answered, paid calls delivered, free samples served. */
interface DailyCountTable {
  day: string;
  sku: string;
  kind: DailyCountKind;
  count: number;
}

/** Per facilitator: its last /supported answer, and its health as a serving node last reported it. */
export interface LocalBatchChannelTable {
  network: string;
  channel_id: string;
  payer: string;
  receiver: string;
  token: string;
  balance: string;
  total_claimed: string;
  refund_nonce: string;
  withdraw_amount: string | null;
  withdraw_initiated_at: number | null;
}

export interface LocalBatchReceiverTable {
  network: string;
  receiver: string;
  token: string;
  total_claimed: string;
  total_settled: string;
}

interface LocalBatchTransactionTable {
  tx_hash: string;
  network: string;
  /** The contract functions the transaction ran, comma-separated (a multicall runs several). */
  calls: string;
  /** A settle's Settled event: to whom, which token, how much. */
  settled_receiver: string | null;
  settled_token: string | null;
  settled_amount: string | null;
  created_at: string;
}

interface FacilitatorStatusTable {
  /** The facilitator's URL without credentials or query, or "local". */
  facilitator: string;
  /** The /supported answer's JSON, kept so a restart during an outage still knows what it settles. */
  supported: string | null;
  read_at: string | null;
  /** Its circuit, failures and latency (JSON), as last reported. */
  status: string | null;
  reported_at: string | null;
}

/** The seller's record of one batch-settlement channel (store/channels.ts). Times are ms since the epoch. */
export interface BatchChannelTable {
  network: string;
  /** Lower-case 0x hex. */
  channel_id: string;
  payer: string;
  /** The channel's ChannelConfig as JSON. */
  channel_config: string;
  charged_cumulative: string;
  signed_max_claimable: string;
  signature: string;
  balance: string;
  total_claimed: string;
  withdraw_requested_at: number;
  refund_nonce: number;
  onchain_synced_at: number | null;
  last_request_at: number;
  pending_id: string | null;
  pending_max_claimable: string | null;
  pending_expires_at: number | null;
  updated_at: string;
  /**
   * Charges written off up to this cumulative total (atomic USDC, "0" when none): the chain held less than
   * they came to when the channel manager came to claim them (a channel drained before it was claimed).
   */
  written_off_to: Generated<string>;
}

/**
 * One on-chain operation of the channel manager: a claim of many vouchers, a settlement to the pay-to, or a
 * channel's refund. done: the facilitator confirmed it; failed: refused; unknown: its answer was lost and the
 * channel's on-chain state decides it. A `lost` row is no transaction: a channel's charges the chain can no
 * longer pay (its balance fell below them before they were claimed), written off (always done).
 */
export interface BatchOperationTable {
  id: Generated<number>;
  created_at: string;
  network: string;
  kind: "claim" | "settle" | "refund" | "lost";
  channel_id: string | null;
  vouchers: number;
  /** Atomic USDC the operation moved (claimed, settled or refunded). */
  amount: string;
  transaction: string | null;
  state: "done" | "failed" | "unknown";
  error_reason: string | null;
  /** A claim's rows, JSON [{channelId, totalClaimed}]: what the chain is asked about when its answer is lost. */
  claims: string | null;
  chain_checked_at: string | null;
  /** Why the chain could not be asked about this undecided operation (the alarm), or null. */
  chain_error: string | null;
}

export interface Database {
  cache_documents: CacheDocumentTable;
  ledger: LedgerTable;
  nonce_claims: NonceClaimTable;
  jobs: JobTable;
  warmer_runs: WarmerRunTable;
  sample_counters: SampleCounterTable;
  local_usdc_balances: LocalUsdcBalanceTable;
  local_usdc_transfers: LocalUsdcTransferTable;
  sales: SaleTable;
  leases: LeaseTable;
  upstream_budgets: UpstreamBudgetTable;
  upstream_requests: UpstreamRequestTable;
  upstream_slots: UpstreamSlotTable;
  ledger_refunds: LedgerRefundTable;
  daily_counts: DailyCountTable;
  facilitator_status: FacilitatorStatusTable;
  local_batch_channels: LocalBatchChannelTable;
  local_batch_receivers: LocalBatchReceiverTable;
  local_batch_transactions: LocalBatchTransactionTable;
  batch_channels: BatchChannelTable;
  batch_operations: BatchOperationTable;
}
