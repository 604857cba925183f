// The operator page: server-rendered HTML with inline CSS and SVG, nothing loaded from elsewhere, no script.
import { revenueChart } from "./chart.ts";
import { Html, html } from "./html.ts";
import {
  FACILITATOR_HEADERS,
  facilitatorCells,
  type InFlightFigures,
  conversionText as percent,
  type Stats,
  usdText as usd,
} from "./stats.ts";

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:16px 20px;color:#1d2430;background:#fbfbfc}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #dde1e7;padding-bottom:4px}
.muted{color:#5b6574}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 12px;min-width:130px}
.card b{display:block;font-size:18px}.warn b{color:#a4161a}
table{border-collapse:collapse;width:100%;background:#fff;margin:4px 0}
th,td{border:1px solid #e3e6eb;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f6;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere}.mono{word-break:break-all}
.chart .bar{fill:#2f6fdf}.chart .day:hover .bar{fill:#174ea6}.chart .hit{fill:transparent}
.chart .axis{stroke:#8a94a3}.chart .tick{font-size:11px;fill:#5b6574}
.flash{background:#e7f5ea;border:1px solid #9fd3a9;padding:6px 10px;border-radius:4px}
.ok{color:#1e7b34}.bad{color:#a4161a}.stale{color:#9a6700}
form.inline{display:flex;gap:4px;flex-wrap:wrap}form.inline input{font:12px ui-monospace,monospace}
pre{background:#f1f3f6;padding:8px;overflow:auto;font-size:12px}
`;

function table(headers: string[], rows: unknown[][], empty: string, numeric: number[] = []): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows.map(
    (cells) =>
      html`<tr>${cells.map((cell, i) => (numeric.includes(i) ? html`<td class="n">${cell}</td>` : html`<td>${cell}</td>`))}</tr>`,
  )}</tbody></table>`;
}

function age(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}

function card(label: string, value: string, warn = false): Html {
  return html`<div class="card${warn ? " warn" : ""}"><span class="muted">${label}</span><b>${value}</b></div>`;
}

function inFlightSection(f: InFlightFigures): Html {
  const node = f.node;
  const busy = node !== undefined && node.inFlight >= node.limit;
  return html`<section aria-labelledby="h-in-flight"><h2 id="h-in-flight">Paid calls in flight (this node)</h2>
<section class="cards" aria-label="Paid calls in flight">
${card("In flight now", node ? String(node.inFlight) : "–", busy)}${card("Limit (PAID_CALLS_MAX_IN_FLIGHT)", String(f.limit))}
${card("Refused as busy since start", node ? String(node.refused) : "–", (node?.refused ?? 0) > 0)}${card("Refused as busy (period, all nodes)", String(f.refusedInPeriod), f.refusedInPeriod > 0)}
${node?.facilitator ? card("Facilitator requests waiting / running", `${node.facilitator.pending} / ${node.facilitator.running}`, node.facilitator.pending > 0) : ""}
</section>
<p class="muted">Each node takes at most the limit of paid calls at once; one more is refused with 503 and Retry-After before its payment is verified, and nothing is charged.</p></section>`;
}

interface PageOptions {
  flash?: string;
  publicUrl: string;
}

function revenueSection(s: Stats): Html {
  return html`<section aria-labelledby="h-revenue"><h2 id="h-revenue">Revenue per day</h2>
${revenueChart(s.revenuePerDay)}
<details><summary>Revenue per day as a table</summary>
${table(
  ["Day", "Revenue (USD)", "Atomic", "Paid calls"],
  s.revenuePerDay.map((d) => [d.day, usd(d), d.atomic, d.paidCalls]),
  "No days.",
  [1, 2, 3],
)}
</details></section>`;
}

function productsSection(s: Stats): Html {
  return html`<section aria-labelledby="h-products"><h2 id="h-products">Products</h2>
${table(
  [
    "Product (sku)",
    "Revenue",
    "Paid calls",
    "402 challenges",
    "Paid (counted)",
    "Conversion",
    "Free samples",
    "Bazaar listed / refused",
  ],
  s.products.map((p) => [
    html`<code>${p.sku}</code>`,
    usd(p),
    p.paidCalls,
    p.challenges,
    p.paidCounted,
    percent(p.conversion),
    p.samples,
    `${p.indexerListed} / ${p.indexerRefused}`,
  ]),
  "No sales, challenges or samples in this period.",
  [1, 2, 3, 4, 5, 6],
)}
<p class="muted">Conversion is paid answers delivered per 402 challenge answered, both counted by the serving nodes.</p></section>`;
}

function networksSection(s: Stats): Html {
  return html`<section aria-labelledby="h-networks"><h2 id="h-networks">Networks</h2>
${table(
  ["Network", "Revenue", "Atomic", "Paid calls"],
  s.networks.map((n) => [html`<code>${n.network}</code>`, usd(n), n.atomic, n.paidCalls]),
  "No sales in this period.",
  [1, 2, 3],
)}</section>`;
}

function settlementsSection(s: Stats): Html {
  return html`<section aria-labelledby="h-settlements"><h2 id="h-settlements">Settlements that did not settle (this period)</h2>
${table(
  ["Outcome", "Count", "Amount"],
  [
    ["failed", s.settlements.failed.count, usd(s.settlements.failed)],
    ["unknown (the chain decides)", s.settlements.unknown.count, usd(s.settlements.unknown)],
    ["pending (process stopped mid-settlement)", s.settlements.pending.count, usd(s.settlements.pending)],
  ],
  "",
  [1, 2],
)}</section>`;
}

function refundsSection(s: Stats, publicUrl: string): Html {
  return html`<section aria-labelledby="h-refunds"><h2 id="h-refunds">Refunds due</h2>
<p class="muted">Settled payments whose answer never reached the buyer within a day. paycall moves no money: send the refund from the pay-to wallet, then record its transaction here.</p>
${table(
  [
    "Row",
    "Settled at",
    "Product",
    "Payer",
    "Network",
    "Amount",
    "Atomic",
    "Payment transaction",
    "Record the refund",
  ],
  s.refunds.due.map((r) => [
    r.id,
    r.settledAt,
    html`<code>${r.sku}</code>`,
    html`<span class="mono">${r.payer ?? "–"}</span>`,
    html`<code>${r.network}</code>`,
    usd(r),
    r.atomic,
    html`<span class="mono">${r.transaction ?? "–"}</span>`,
    html`<form class="inline" method="post" action="/admin/refunds/${r.id}"><input name="transaction" required placeholder="refund transaction" aria-label="Refund transaction for row ${r.id}" size="20"><input name="note" placeholder="note" aria-label="Note for row ${r.id}" size="10"><button type="submit">Record</button></form>`,
  ]),
  "No refund is due.",
  [0, 5, 6],
)}
<details><summary>Record a refund with curl</summary><pre>curl -X POST ${publicUrl}/admin/refunds/&lt;row&gt; \\
  -H "Authorization: Bearer $ADMIN_TOKEN" -H "Content-Type: application/json" \\
  -d '{"transaction":"0x…","note":"refunded by hand"}'</pre></details>
<h2 id="h-refunds-made">Refunds made (this period)</h2>
${table(
  ["Row", "Recorded at", "Amount", "Refund transaction", "Note"],
  s.refunds.made.map((r) => [
    r.ledgerId,
    r.recordedAt,
    usd(r),
    html`<span class="mono">${r.transaction}</span>`,
    r.note ?? "",
  ]),
  "No refund recorded in this period.",
  [0, 2],
)}</section>`;
}

function batchSection(s: Stats): Html {
  const b = s.batch;
  if (b.calls === 0 && b.openChannels === 0) return html``;
  return html`<section aria-labelledby="h-batch"><h2 id="h-batch">batch-settlement channels</h2>
<div class="cards">${card("Open channels", String(b.openChannels))}${card("Deposits held", usd(b.held))}${card(
    "Vouchers unclaimed",
    `${b.unclaimed.vouchers} (${usd(b.unclaimed)})`,
  )}${card("Claims", `${b.claims.count} (${usd(b.claims)})`)}${card(
    "Settlements",
    `${b.settlements.count} (${usd(b.settlements)})`,
  )}${card("Refunds", `${b.refunds.count} (${usd(b.refunds)})`)}${card(
    "Lost (channels drained before claimed)",
    `${b.lost.count} (${usd(b.lost)})`,
    b.lost.count > 0,
  )}${card(
    "Undecided operations",
    b.unreachableOperations > 0
      ? `${b.unknownOperations} (${b.unreachableOperations} the chain cannot be asked about: ${b.chainError})`
      : String(b.unknownOperations),
    b.unknownOperations > 0,
  )}${card("On-chain transactions saved", `${b.transactionsSaved} of ${b.calls} calls`)}</div>
${table(
  ["Network", "Channel", "Payer", "Refundable", "Unclaimed", "Last voucher", "Refund the rest"],
  b.channels.map((ch) => [
    html`<code>${ch.network}</code>`,
    html`<span class="mono">${ch.channelId}</span>`,
    html`<span class="mono">${ch.payer}</span>`,
    usd(ch.refundable),
    usd(ch.unclaimed),
    ch.lastRequestAt,
    html`<form class="inline" method="post" action="/admin/channels/refund"><input type="hidden" name="network" value="${ch.network}"><input type="hidden" name="channel" value="${ch.channelId}"><button type="submit">Refund</button></form>`,
  ]),
  "No open channel.",
  [3, 4],
)}</section>`;
}

function facilitatorsSection(s: Stats): Html {
  return html`<section aria-labelledby="h-facilitators"><h2 id="h-facilitators">Facilitators</h2>
${table(
  FACILITATOR_HEADERS,
  s.facilitators.map(facilitatorCells),
  "No serving node has reported yet.",
  [2],
)}</section>`;
}

function warmersSection(s: Stats): Html {
  return html`<section aria-labelledby="h-warmers"><h2 id="h-warmers">Warmers</h2>
${table(
  ["Family", "Warmer", "Health", "Last run", "Last success", "Last error", "Runs"],
  s.warmers.map((w) => [
    w.family ?? "–",
    html`<code>${w.name}</code>`,
    html`<span class="${w.health === "ok" ? "ok" : w.health === "failing" ? "bad" : "stale"}">${w.health}</span>`,
    w.lastRunAt ?? "never",
    w.lastSuccessAt ?? "never",
    w.lastError ? `${w.lastErrorAt ?? ""} ${w.lastError}` : "",
    w.runs,
  ]),
  "No warmer is declared or has run.",
  [6],
)}</section>`;
}

function cacheSection(s: Stats): Html {
  return html`<section aria-labelledby="h-cache"><h2 id="h-cache">Cache</h2>
${table(
  ["Family", "Documents", "Newest", "Age of newest", "Oldest"],
  s.cache.map((c) => [
    html`<code>${c.family}</code>`,
    c.documents,
    c.newestAt,
    age(c.newestAgeSec),
    c.oldestAt,
  ]),
  "The cache is empty.",
  [1, 3],
)}</section>`;
}

function lanesSection(s: Stats): Html {
  return html`<section aria-labelledby="h-lanes"><h2 id="h-lanes">Job lanes</h2>
${table(
  ["Lane", "Due, waiting", "Running", "Oldest due waited"],
  s.lanes.map((l) => [
    html`<code>${l.lane}</code>`,
    l.due,
    l.running,
    l.oldestDueAgeSec === null ? "" : age(l.oldestDueAgeSec),
  ]),
  "",
  [1, 2, 3],
)}</section>`;
}

function queuesSection(s: Stats): Html {
  return html`<section aria-labelledby="h-queues"><h2 id="h-queues">Job queues</h2>
${table(
  ["Queue", "Queued", "Running", "Done", "Dead"],
  s.queues.map((q) => [html`<code>${q.queue}</code>`, q.queued, q.running, q.done, q.dead]),
  "No jobs.",
  [1, 2, 3, 4],
)}
${
  s.deadJobs.length
    ? html`<h2 id="h-dead">Dead jobs (latest ${s.deadJobs.length})</h2>${table(
        ["Queue", "Key", "Attempts", "Last error", "At"],
        s.deadJobs.map((j) => [
          html`<code>${j.queue}</code>`,
          html`<code>${j.key}</code>`,
          j.attempts,
          j.lastError ?? "",
          j.updatedAt,
        ]),
        "",
        [2],
      )}`
    : ""
}</section>`;
}

function summaryCards(s: Stats): Html {
  const refundsDue = s.refunds.dueTotal.count;
  return html`<section class="cards" aria-label="Summary">
${card("Revenue", usd(s.revenue))}${card("Paid calls", String(s.revenue.paidCalls))}${card("Unique payers", String(s.revenue.uniquePayers))}
${card("Settle failures", String(s.settlements.failed.count), s.settlements.failed.count > 0)}
${card("Open unknown / pending", `${s.openUncertain.unknown} / ${s.openUncertain.pending}`, s.openUncertain.unknown + s.openUncertain.pending > 0)}
${card("Refunds due", `${refundsDue} (${usd(s.refunds.dueTotal)})`, refundsDue > 0)}
</section>`;
}

function pageHeader(s: Stats): Html {
  return html`<header><h1>paycall operator view</h1>
<p class="muted">${s.period.from} to ${s.period.to} (${s.period.days} days, UTC) · generated ${s.generatedAt}</p>
<form method="get" action="/admin" class="inline" aria-label="Period">
<label>From <input type="date" name="from" value="${s.period.from}"></label>
<label>To <input type="date" name="to" value="${s.period.to}"></label>
<button type="submit">Show</button></form></header>`;
}

export function adminPage(stats: Stats, options: PageOptions): string {
  const s = stats;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>paycall operator view</title><style>${new Html(STYLE)}</style></head>
<body>
${pageHeader(s)}
${options.flash ? html`<p class="flash" role="status">${options.flash}</p>` : ""}
<main>
${summaryCards(s)}

${revenueSection(s)}

${productsSection(s)}

${networksSection(s)}

${settlementsSection(s)}

${refundsSection(s, options.publicUrl)}
${batchSection(s)}

${facilitatorsSection(s)}

${warmersSection(s)}

${cacheSection(s)}

${inFlightSection(s.paidCallsInFlight)}

${lanesSection(s)}

${queuesSection(s)}
</main>
<footer class="muted"><p>JSON: <code>/admin/stats?from=${s.period.from}&amp;to=${s.period.to}</code> · ledger: <code>/admin/ledger</code> · terminal: <code>npm run stats</code></p></footer>
</body></html>`;
  return page.text;
}

/** A short page for a refused form submission, with the way back. */
export function messagePage(title: string, message: string): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${new Html(STYLE)}</style></head>
<body><h1>${title}</h1><p>${message}</p><p><a href="/admin">Back to the operator view</a></p></body></html>`
    .text;
}
