// The operator's figures, read from the store alone (the admin page, /admin/stats and `npm run stats` share
// them): revenue, conversion, settlement trouble, refunds, cache and warmer health, the job queues.
import { sql } from "kysely";
import type { Family } from "../catalog/product.ts";
import type { PaidCallsNow } from "../observability/metrics.ts";
import { type BatchFigures, owing } from "../store/batch-operations.ts";
import { emptyTally, type Tally } from "../store/daily-counters.ts";
import type { LaneFigures } from "../store/jobs.ts";
import type { Store } from "../store/store.ts";
import { atomicToUsd } from "../x402/shared/money.ts";
import type { Period } from "./period.ts";

interface Money {
  /** Decimal US dollars ("1.25"). */
  usd: string;
  /** USDC atomic units (6 decimals). */
  atomic: string;
}

export interface DayRevenue extends Money {
  day: string;
  paidCalls: number;
}

interface ProductFigures extends Money {
  sku: string;
  /** Settled payments in the ledger. */
  paidCalls: number;
  /** 402 answers given (counted per node, flushed every few seconds). */
  challenges: number;
  /** Paid answers delivered, counted the same way as challenges. */
  paidCounted: number;
  samples: number;
  /** Settlements after which the facilitator's Bazaar listed the route, and those after which it did not. */
  indexerListed: number;
  indexerRefused: number;
  /** Paid requests refused with 503 before verify: their node held PAID_CALLS_MAX_IN_FLIGHT paid calls. */
  refusedBusy: number;
  /** paidCounted / challenges, or null without challenges. */
  conversion: number | null;
}

interface NetworkFigures extends Money {
  network: string;
  paidCalls: number;
}

interface StateFigures extends Money {
  count: number;
}

interface RefundDueFigures extends Money {
  id: number;
  sku: string;
  network: string;
  payer: string | null;
  transaction: string | null;
  settledAt: string;
}

interface RefundMadeFigures extends Money {
  ledgerId: number;
  transaction: string;
  note: string | null;
  recordedAt: string;
}

interface CacheFigures {
  family: string;
  documents: number;
  newestAt: string;
  oldestAt: string;
  /** Seconds since the newest document was fetched. */
  newestAgeSec: number;
}

type WarmerHealth = "ok" | "stale" | "failing" | "running" | "never";

interface WarmerFigures {
  /** The family declaring the warmer; null for a warmer that ran but is not declared any more. */
  family: string | null;
  name: string;
  everyMs: number | null;
  health: WarmerHealth;
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  runs: number;
}

interface QueueFigures {
  queue: string;
  queued: number;
  running: number;
  done: number;
  dead: number;
}

interface DeadJob {
  queue: string;
  key: string;
  attempts: number;
  lastError: string | null;
  updatedAt: string;
}

/** A facilitator's health as the serving node that last reported it saw it (src/x402/seller/facilitators/). */
interface FacilitatorFigures {
  facilitator: string;
  state: string;
  consecutiveFailures: number;
  verifyP50Ms: number | null;
  verifyP99Ms: number | null;
  settleP50Ms: number | null;
  settleP99Ms: number | null;
  /** The operations ("verify", "settle") whose last payment it served. */
  servedLast: string[];
  lastServedAt: string | null;
  reportedAt: string;
}

export interface Stats {
  period: { from: string; to: string; days: number };
  generatedAt: string;
  revenue: Money & { paidCalls: number; uniquePayers: number };
  revenuePerDay: DayRevenue[];
  products: ProductFigures[];
  networks: NetworkFigures[];
  /** Settlement attempts of the period that did not settle: failed, unknown, pending. */
  settlements: { failed: StateFigures; unknown: StateFigures; pending: StateFigures };
  /** Rows of any date whose outcome is still open (the chain decides them). */
  openUncertain: { unknown: number; pending: number };
  refunds: {
    /** Owed now, whatever the period. */
    due: RefundDueFigures[];
    dueTotal: StateFigures;
    /** Recorded during the period. */
    made: RefundMadeFigures[];
    madeTotal: StateFigures;
  };
  cache: CacheFigures[];
  warmers: WarmerFigures[];
  /** Due jobs waiting for a worker slot and running ones per lane, now (fetch: items buyers asked for). */
  lanes: LaneFigures[];
  queues: QueueFigures[];
  deadJobs: DeadJob[];
  paidCallsInFlight: InFlightFigures;
  facilitators: FacilitatorFigures[];
  batch: BatchStats;
}

/** batch-settlement now: what the channels hold and owe, and the on-chain operations since the start. */
export interface BatchStats {
  openChannels: number;
  /** Deposited and not yet claimed. */
  held: Money;
  /** Charged by vouchers and not yet claimed: the sales and what they come to. */
  unclaimed: Money & { vouchers: number };
  claims: StateFigures;
  settlements: StateFigures;
  refunds: StateFigures;
  /** Charges written off: their channel was drained on chain before they were claimed. */
  lost: StateFigures;
  /** Claims, settlements and refunds whose answer was lost (the chain decides them). */
  unknownOperations: number;
  /** Of those, the ones the chain could not be asked about (why, the last time): an operator must look. */
  unreachableOperations: number;
  chainError: string | null;
  /** Paid calls made with batch-settlement, the on-chain transactions they took, and those exact would have. */
  calls: number;
  transactions: number;
  transactionsSaved: number;
  /** The open channels most recently used (at most 50), each with what it holds beyond its charges. */
  channels: ChannelFigures[];
}

interface ChannelFigures {
  network: string;
  channelId: string;
  payer: string;
  /** Deposited and not charged: what a refund would give back. */
  refundable: Money;
  unclaimed: Money;
  lastRequestAt: string;
}

const CHANNELS_LISTED = 50;

async function channelList(store: Store): Promise<ChannelFigures[]> {
  const all = await store.channels.listAll();
  return all
    .sort((a, b) => b.channel.lastRequestTimestamp - a.channel.lastRequestTimestamp)
    .slice(0, CHANNELS_LISTED)
    .map(({ network, channel: c, writtenOffTo }) => ({
      network,
      channelId: c.channelId,
      payer: c.channelConfig.payer,
      refundable: money(owing(c.balance, c.chargedCumulativeAmount)),
      unclaimed: money(owing(c.chargedCumulativeAmount, c.totalClaimed, writtenOffTo)),
      lastRequestAt: new Date(c.lastRequestTimestamp).toISOString(),
    }));
}

function batchStats(f: BatchFigures, channels: ChannelFigures[]): BatchStats {
  return {
    channels,
    openChannels: f.openChannels,
    held: money(f.heldAtomic),
    unclaimed: { vouchers: f.unclaimedVouchers, ...money(f.unclaimedAtomic) },
    claims: { count: f.claims.count, ...money(f.claims.atomic) },
    settlements: { count: f.settlements.count, ...money(f.settlements.atomic) },
    refunds: { count: f.refunds.count, ...money(f.refunds.atomic) },
    lost: { count: f.lost.count, ...money(f.lost.atomic) },
    unknownOperations: f.unknown,
    unreachableOperations: f.chain.unreachable,
    chainError: f.chain.lastError,
    calls: f.calls,
    transactions: f.transactions,
    transactionsSaved: Math.max(0, f.calls - f.transactions),
  };
}

/** The bound on paid calls in flight (per node) and what it did. */
export interface InFlightFigures {
  /** PAID_CALLS_MAX_IN_FLIGHT as this process reads it. */
  limit: number;
  /** Refused as busy during the period, every node counted. */
  refusedInPeriod: number;
  /** The serving node's own figures now: on the operator page, not from `npm run stats` (no node runs there). */
  node?: PaidCallsNow;
}

export interface DeclaredWarmer {
  family: string;
  name: string;
  everyMs: number;
}

export function declaredWarmers(families: Family[]): DeclaredWarmer[] {
  return families.flatMap((f) =>
    (f.warmers ?? []).map((w) => ({ family: f.name, name: w.name, everyMs: w.everyMs })),
  );
}

export function money(atomic: bigint): Money {
  return { usd: atomicToUsd(atomic), atomic: atomic.toString() };
}

/** "$1.25", for pages and terminals. */
export function usdText(m: Money): string {
  return `$${m.usd}`;
}

/** "33.3%", or "–" without challenges. */
export function conversionText(ratio: number | null): string {
  return ratio === null ? "–" : `${(ratio * 100).toFixed(1)}%`;
}

const DEAD_JOBS_SHOWN = 20;
/** A warmer whose last success is older than this many periods is stale. */
const STALE_PERIODS = 2;

export const FACILITATOR_HEADERS = [
  "Facilitator",
  "Circuit",
  "Failures in a row",
  "Verify p50 / p99 ms",
  "Settle p50 / p99 ms",
  "Served the last",
  "Reported at",
];

/** One facilitator's row of the admin page and `npm run stats`. */
export function facilitatorCells(f: FacilitatorFigures): Array<string | number> {
  const pair = (a: number | null, b: number | null) => (a === null ? "–" : `${a} / ${b}`);
  return [
    f.facilitator,
    f.state,
    f.consecutiveFailures,
    pair(f.verifyP50Ms, f.verifyP99Ms),
    pair(f.settleP50Ms, f.settleP99Ms),
    f.servedLast.join(", ") || "–",
    f.reportedAt,
  ];
}

async function facilitatorFigures(store: Store): Promise<FacilitatorFigures[]> {
  const ms = (v: unknown) => (typeof v === "number" ? Math.round(v) : null);
  return (await store.facilitators.reported()).map(({ status: s, reportedAt }) => {
    const timing = (op: string) => (s[op] ?? {}) as { p50Ms?: unknown; p99Ms?: unknown };
    const last = (s.servedLast ?? {}) as Record<string, unknown>;
    return {
      facilitator: String(s.facilitator),
      state: String(s.state),
      consecutiveFailures: Number(s.consecutiveFailures ?? 0),
      verifyP50Ms: ms(timing("verify").p50Ms),
      verifyP99Ms: ms(timing("verify").p99Ms),
      settleP50Ms: ms(timing("settle").p50Ms),
      settleP99Ms: ms(timing("settle").p99Ms),
      servedLast: ["verify", "settle"].filter((op) => last[op] === true),
      lastServedAt: typeof s.lastServedAt === "string" ? s.lastServedAt : null,
      reportedAt,
    };
  });
}

type Sold = { atomic: bigint; paidCalls: number };

/** The settled groups summed in total and per day, SKU and network. */
function revenueBreakdown(ledger: Awaited<ReturnType<typeof settledGroups>>, period: Period) {
  const perDay = new Map<string, Sold>(period.days.map((day) => [day, { atomic: 0n, paidCalls: 0 }]));
  const perSku = new Map<string, Sold>();
  const perNetwork = new Map<string, Sold>();
  let total = 0n;
  let paidCalls = 0;
  for (const g of ledger) {
    total += g.atomic;
    paidCalls += g.count;
    for (const [map, key] of [
      [perDay, g.day],
      [perSku, g.sku],
      [perNetwork, g.network],
    ] as const) {
      const entry = map.get(key) ?? { atomic: 0n, paidCalls: 0 };
      entry.atomic += g.atomic;
      entry.paidCalls += g.count;
      map.set(key, entry);
    }
  }
  return { total, paidCalls, perDay, perSku, perNetwork };
}

function tallyBySku(counts: Awaited<ReturnType<Store["dailyCounts"]["between"]>>): Map<string, Tally> {
  const counted = new Map<string, Tally>();
  for (const c of counts) {
    const entry = counted.get(c.sku) ?? emptyTally();
    entry[c.kind] += c.count;
    counted.set(c.sku, entry);
  }
  return counted;
}

/** One row per SKU sold or counted, in SKU order. */
function productRows(perSku: Map<string, Sold>, counted: Map<string, Tally>): Stats["products"] {
  const skus = [...new Set([...perSku.keys(), ...counted.keys()])].sort();
  return skus.map((sku) => {
    const sold = perSku.get(sku) ?? { atomic: 0n, paidCalls: 0 };
    const c = counted.get(sku) ?? emptyTally();
    return {
      sku,
      ...money(sold.atomic),
      paidCalls: sold.paidCalls,
      challenges: c.challenge,
      paidCounted: c.paid,
      samples: c.sample,
      indexerListed: c.indexed,
      indexerRefused: c.index_refused,
      refusedBusy: c.busy,
      conversion: c.challenge > 0 ? Math.round((c.paid / c.challenge) * 10_000) / 10_000 : null,
    };
  });
}

/** Every figure the report is built from, read at once. */
function readFigures(store: Store, period: Period, declared: DeclaredWarmer[], now: Date) {
  return allOf({
    ledger: settledGroups(store, period),
    uniquePayers: countUniquePayers(store, period),
    states: stateTotals(store, period),
    openUncertain: openUncertainCounts(store),
    counts: store.dailyCounts.between(period.from, period.to),
    refunds: refundFigures(store, period, now),
    cache: cacheFigures(store, now),
    warmers: warmerFigures(store, declared, now),
    lanes: store.jobs.laneFigures(now),
    queues: queueFigures(store),
    deadJobs: deadJobList(store),
    facilitators: facilitatorFigures(store),
    batch: store.batchOperations.figures(),
    channels: channelList(store),
  });
}

/** The values of named promises, under the same names, awaited together. */
async function allOf<T extends Record<string, Promise<unknown>>>(
  promises: T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const names = Object.keys(promises);
  const values = await Promise.all(Object.values(promises));
  return Object.fromEntries(names.map((name, i) => [name, values[i]])) as { [K in keyof T]: Awaited<T[K]> };
}

export async function collectStats(
  store: Store,
  period: Period,
  options: {
    warmers?: DeclaredWarmer[];
    now?: Date;
    /** This process's PAID_CALLS_MAX_IN_FLIGHT, and the serving node's paid calls now when there is one. */
    inFlight?: { limit: number; node?: PaidCallsNow | undefined };
  } = {},
): Promise<Stats> {
  const now = options.now ?? new Date();
  const {
    ledger,
    uniquePayers,
    states,
    openUncertain,
    counts,
    refunds,
    cache,
    warmers,
    lanes,
    queues,
    deadJobs,
    facilitators,
    batch,
    channels,
  } = await readFigures(store, period, options.warmers ?? [], now);

  const { total, paidCalls, perDay, perSku, perNetwork } = revenueBreakdown(ledger, period);
  const counted = tallyBySku(counts);
  const node = options.inFlight?.node;

  return {
    period: { from: period.from, to: period.to, days: period.days.length },
    generatedAt: now.toISOString(),
    revenue: { ...money(total), paidCalls, uniquePayers },
    revenuePerDay: [...perDay].map(([day, d]) => ({ day, ...money(d.atomic), paidCalls: d.paidCalls })),
    products: productRows(perSku, counted),
    networks: [...perNetwork]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([network, n]) => ({ network, ...money(n.atomic), paidCalls: n.paidCalls })),
    settlements: {
      failed: states.get("failed") ?? { count: 0, ...money(0n) },
      unknown: states.get("unknown") ?? { count: 0, ...money(0n) },
      pending: states.get("pending") ?? { count: 0, ...money(0n) },
    },
    openUncertain,
    refunds,
    cache,
    warmers,
    lanes,
    queues,
    deadJobs,
    paidCallsInFlight: {
      limit: options.inFlight?.limit ?? 0,
      refusedInPeriod: [...counted.values()].reduce((sum, c) => sum + c.busy, 0),
      ...(node ? { node } : {}),
    },
    facilitators,
    batch: batchStats(batch, channels),
  };
}

/** The exact sum of a text column of atomic amounts, as text (no float on either database). */
function atomicSum(store: Store) {
  return store.kind === "postgres"
    ? sql<string>`cast(sum(cast(amount as bigint)) as text)`
    : sql<string>`cast(sum(cast(amount as integer)) as text)`;
}

const dayOfCreatedAt = sql<string>`substr(created_at, 1, 10)`;

async function settledGroups(store: Store, period: Period) {
  const rows = await store.db
    .selectFrom("ledger")
    .select([
      dayOfCreatedAt.as("day"),
      "sku",
      "network",
      (eb) => eb.fn.countAll<number>().as("n"),
      atomicSum(store).as("atomic"),
    ])
    .where("state", "=", "settled")
    .where("created_at", ">=", period.startsAt)
    .where("created_at", "<", period.endsBefore)
    .groupBy([dayOfCreatedAt, "sku", "network"])
    .execute();
  return rows.map((r) => ({
    day: r.day,
    sku: r.sku,
    network: r.network,
    count: Number(r.n),
    atomic: BigInt(r.atomic ?? 0),
  }));
}

async function countUniquePayers(store: Store, period: Period): Promise<number> {
  const row = await store.db
    .selectFrom("ledger")
    .select((eb) => eb.fn.count<number>("payer").distinct().as("n"))
    .where("state", "=", "settled")
    .where("created_at", ">=", period.startsAt)
    .where("created_at", "<", period.endsBefore)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function stateTotals(store: Store, period: Period): Promise<Map<string, StateFigures>> {
  const rows = await store.db
    .selectFrom("ledger")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n"), atomicSum(store).as("atomic")])
    .where("state", "in", ["failed", "unknown", "pending"])
    .where("created_at", ">=", period.startsAt)
    .where("created_at", "<", period.endsBefore)
    .groupBy("state")
    .execute();
  return new Map(rows.map((r) => [r.state, { count: Number(r.n), ...money(BigInt(r.atomic ?? 0)) }]));
}

async function openUncertainCounts(store: Store): Promise<Stats["openUncertain"]> {
  const rows = await store.db
    .selectFrom("ledger")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .where("state", "in", ["unknown", "pending"])
    .groupBy("state")
    .execute();
  const open = { unknown: 0, pending: 0 };
  for (const r of rows) open[r.state as keyof typeof open] = Number(r.n);
  return open;
}

function totalOf(items: Array<{ atomic: string }>): StateFigures {
  return { count: items.length, ...money(items.reduce((sum, i) => sum + BigInt(i.atomic), 0n)) };
}

async function refundFigures(store: Store, period: Period, now: Date): Promise<Stats["refunds"]> {
  const [due, made] = await Promise.all([
    store.ledger.refundsDue(now),
    store.refunds.recordedBetween(period.startsAt, period.endsBefore),
  ]);
  const dueFigures = due.map((r) => ({
    id: r.id,
    sku: r.sku,
    network: r.network,
    payer: r.payer,
    transaction: r.transaction,
    settledAt: r.settledAt,
    ...money(BigInt(r.amount)),
  }));
  const madeFigures = made.map((r) => ({
    ledgerId: r.ledgerId,
    transaction: r.transaction,
    note: r.note,
    recordedAt: r.recordedAt,
    ...money(BigInt(r.amount)),
  }));
  return {
    due: dueFigures,
    dueTotal: totalOf(dueFigures),
    made: madeFigures,
    madeTotal: totalOf(madeFigures),
  };
}

async function cacheFigures(store: Store, now: Date): Promise<CacheFigures[]> {
  const rows = await store.db
    .selectFrom("cache_documents")
    .select([
      "family",
      (eb) => eb.fn.countAll<number>().as("n"),
      (eb) => eb.fn.min("fetched_at").as("oldest"),
      (eb) => eb.fn.max("fetched_at").as("newest"),
    ])
    .groupBy("family")
    .orderBy("family")
    .execute();
  return rows.map((r) => ({
    family: r.family,
    documents: Number(r.n),
    newestAt: r.newest,
    oldestAt: r.oldest,
    newestAgeSec: Math.max(0, Math.round((now.getTime() - Date.parse(r.newest)) / 1000)),
  }));
}

function healthOf(
  status: { runs: number; lastOk: boolean | null; lastSuccessAt: string | null },
  everyMs: number | null,
  now: Date,
): WarmerHealth {
  if (status.runs === 0) return "never";
  if (status.lastOk === false) return "failing";
  if (!status.lastSuccessAt) return "running";
  if (everyMs !== null && now.getTime() - Date.parse(status.lastSuccessAt) > STALE_PERIODS * everyMs)
    return "stale";
  return "ok";
}

async function warmerFigures(store: Store, declared: DeclaredWarmer[], now: Date): Promise<WarmerFigures[]> {
  const ran = await store.db.selectFrom("warmer_runs").select("warmer").distinct().execute();
  const byName = new Map<string, DeclaredWarmer | undefined>(declared.map((w) => [w.name, w]));
  for (const r of ran) if (!byName.has(r.warmer)) byName.set(r.warmer, undefined);
  const names = [...byName.keys()].sort();
  const statuses = await Promise.all(names.map((name) => store.warmerRuns.status(name)));
  return statuses.map((s) => {
    const declaration = byName.get(s.warmer);
    const everyMs = declaration?.everyMs ?? null;
    return {
      family: declaration?.family ?? null,
      name: s.warmer,
      everyMs,
      health: healthOf(s, everyMs, now),
      lastRunAt: s.lastRunAt,
      lastSuccessAt: s.lastSuccessAt,
      lastError: s.lastError,
      lastErrorAt: s.lastErrorAt,
      runs: s.runs,
    };
  });
}

async function queueFigures(store: Store): Promise<QueueFigures[]> {
  const rows = await store.db
    .selectFrom("jobs")
    .select(["queue", "state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy(["queue", "state"])
    .execute();
  const queues = new Map<string, QueueFigures>();
  for (const r of rows) {
    const q = queues.get(r.queue) ?? { queue: r.queue, queued: 0, running: 0, done: 0, dead: 0 };
    q[r.state] = Number(r.n);
    queues.set(r.queue, q);
  }
  return [...queues.values()].sort((a, b) => a.queue.localeCompare(b.queue));
}

async function deadJobList(store: Store): Promise<DeadJob[]> {
  const rows = await store.db
    .selectFrom("jobs")
    .select(["queue", "key", "attempts", "last_error", "updated_at"])
    .where("state", "=", "dead")
    .orderBy("updated_at", "desc")
    .limit(DEAD_JOBS_SHOWN)
    .execute();
  return rows.map((r) => ({
    queue: r.queue,
    key: r.key,
    attempts: Number(r.attempts),
    lastError: r.last_error,
    updatedAt: r.updated_at,
  }));
}
