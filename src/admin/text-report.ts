// The operator figures as aligned plain-text tables, for `npm run stats`.
import {
  FACILITATOR_HEADERS,
  facilitatorCells,
  type InFlightFigures,
  conversionText as percent,
  type Stats,
  usdText as usd,
} from "./stats.ts";

type Cell = string | number;

/** Columns padded to their widest cell; numbers right-aligned. */
function textTable(headers: string[], rows: Cell[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const numeric = headers.map(
    (_, i) =>
      rows.length > 0 &&
      rows.every((r) => typeof r[i] === "number" || /^\$?[\d.]+%?$|^–$/.test(String(r[i]))),
  );
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells
    .map((r) =>
      r
        .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function section(title: string, body: string): string {
  return `${title}\n${"-".repeat(title.length)}\n${body}\n`;
}

function tableOr(headers: string[], rows: Cell[][], empty: string): string {
  return rows.length ? textTable(headers, rows) : empty;
}

function inFlightText(f: InFlightFigures): string {
  const rows: Cell[][] = [
    ["Limit per node (PAID_CALLS_MAX_IN_FLIGHT)", f.limit],
    ["Refused as busy (period, all nodes)", f.refusedInPeriod],
  ];
  const node = f.node;
  if (!node)
    return `${textTable(["Figure", "Value"], rows)}\nIn flight now: per node, on /admin and /metrics.`;
  rows.push(["In flight now (this node)", node.inFlight], ["Refused as busy since start", node.refused]);
  if (node.facilitator) {
    rows.push([
      "Facilitator requests waiting / running",
      `${node.facilitator.pending} / ${node.facilitator.running}`,
    ]);
  }
  return textTable(["Figure", "Value"], rows);
}

/** Revenue, calls and refunds: the money side of the period. */
function salesSections(s: Stats): string[] {
  return [
    section(
      "Summary",
      textTable(
        ["Figure", "Value"],
        [
          ["Revenue", usd(s.revenue)],
          ["Paid calls", s.revenue.paidCalls],
          ["Unique payers", s.revenue.uniquePayers],
          ["Settle failures", s.settlements.failed.count],
          ["Unknown outcomes (period)", s.settlements.unknown.count],
          ["Pending (period)", s.settlements.pending.count],
          ["Open unknown / pending (all time)", `${s.openUncertain.unknown} / ${s.openUncertain.pending}`],
          ["Refunds due", `${s.refunds.dueTotal.count} (${usd(s.refunds.dueTotal)})`],
          ["Refunds made (period)", `${s.refunds.madeTotal.count} (${usd(s.refunds.madeTotal)})`],
        ],
      ),
    ),
    section("Paid calls in flight", inFlightText(s.paidCallsInFlight)),
    section(
      "Revenue per day",
      textTable(
        ["Day", "Revenue", "Paid calls"],
        s.revenuePerDay.map((d) => [d.day, usd(d), d.paidCalls]),
      ),
    ),
    section(
      "Products",
      tableOr(
        ["Product", "Revenue", "Paid calls", "402s", "Paid (counted)", "Conversion", "Samples", "Bazaar"],
        s.products.map((p) => [
          p.sku,
          usd(p),
          p.paidCalls,
          p.challenges,
          p.paidCounted,
          percent(p.conversion),
          p.samples,
          `${p.indexerListed}/${p.indexerRefused}`,
        ]),
        "No sales, challenges or samples in this period.",
      ),
    ),
    section(
      "Networks",
      tableOr(
        ["Network", "Revenue", "Paid calls"],
        s.networks.map((n) => [n.network, usd(n), n.paidCalls]),
        "No sales.",
      ),
    ),
    section(
      "Refunds due",
      tableOr(
        ["Row", "Settled at", "Product", "Payer", "Network", "Amount", "Transaction"],
        s.refunds.due.map((r) => [
          r.id,
          r.settledAt,
          r.sku,
          r.payer ?? "–",
          r.network,
          usd(r),
          r.transaction ?? "–",
        ]),
        "No refund is due.",
      ),
    ),
  ];
}

/** batch-settlement: the channels now, and the claims, settlements and refunds made of them. */
function batchSection(s: Stats): string {
  const b = s.batch;
  if (b.calls === 0 && b.openChannels === 0) return "";
  return section(
    "batch-settlement",
    textTable(
      ["Figure", "Value"],
      [
        ["Open channels", b.openChannels],
        ["Deposits held", usd(b.held)],
        ["Vouchers unclaimed", `${b.unclaimed.vouchers} (${usd(b.unclaimed)})`],
        ["Claims", `${b.claims.count} (${usd(b.claims)})`],
        ["Settlements", `${b.settlements.count} (${usd(b.settlements)})`],
        ["Refunds", `${b.refunds.count} (${usd(b.refunds)})`],
        ["Lost (channels drained before claimed)", `${b.lost.count} (${usd(b.lost)})`],
        [
          "Operations undecided",
          b.unreachableOperations > 0
            ? `${b.unknownOperations} (${b.unreachableOperations} unreachable on chain: ${b.chainError})`
            : b.unknownOperations,
        ],
        ["Calls / on-chain transactions", `${b.calls} / ${b.transactions} (${b.transactionsSaved} saved)`],
      ],
    ),
  );
}

/** Facilitators, warmers, cache and jobs: the running side. */
function operationSections(s: Stats): string[] {
  return [
    section(
      "Facilitators",
      tableOr(FACILITATOR_HEADERS, s.facilitators.map(facilitatorCells), "No serving node has reported yet."),
    ),
    section(
      "Warmers",
      tableOr(
        ["Family", "Warmer", "Health", "Last success", "Runs"],
        s.warmers.map((w) => [w.family ?? "–", w.name, w.health, w.lastSuccessAt ?? "never", w.runs]),
        "No warmer is declared or has run.",
      ),
    ),
    section(
      "Cache",
      tableOr(
        ["Family", "Documents", "Newest", "Oldest"],
        s.cache.map((c) => [c.family, c.documents, c.newestAt, c.oldestAt]),
        "The cache is empty.",
      ),
    ),
    section(
      "Job lanes",
      textTable(
        ["Lane", "Due", "Running", "Oldest due (s)"],
        s.lanes.map((l) => [l.lane, l.due, l.running, l.oldestDueAgeSec ?? ""]),
      ),
    ),
    section(
      "Job queues",
      tableOr(
        ["Queue", "Queued", "Running", "Done", "Dead"],
        s.queues.map((q) => [q.queue, q.queued, q.running, q.done, q.dead]),
        "No jobs.",
      ),
    ),
    s.deadJobs.length
      ? section(
          "Dead jobs (latest)",
          textTable(
            ["Queue", "Key", "Attempts", "At", "Last error"],
            s.deadJobs.map((j) => [
              j.queue,
              j.key,
              j.attempts,
              j.updatedAt,
              (j.lastError ?? "").slice(0, 80),
            ]),
          ),
        )
      : "",
  ];
}

export function formatStatsText(s: Stats): string {
  return [
    `paycall figures ${s.period.from} to ${s.period.to} (${s.period.days} days, UTC), generated ${s.generatedAt}\n`,
    ...salesSections(s),
    batchSection(s),
    ...operationSections(s),
  ]
    .filter(Boolean)
    .join("\n");
}
