// Revenue per day as an inline SVG bar chart: no script, no external file, a tooltip (<title>) per day.
import { atomicToUsd } from "../x402/shared/money.ts";
import { type Html, html } from "./html.ts";
import type { DayRevenue } from "./stats.ts";

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 56;
const BOTTOM = 24;
const TOP = 12;

function usd(value: string): string {
  return `$${value}`;
}

export function revenueChart(days: DayRevenue[]): Html {
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const max = days.reduce((m, d) => (BigInt(d.atomic) > m ? BigInt(d.atomic) : m), 0n);
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(1, slot * 0.8);
  const total = days.reduce((sum, d) => sum + BigInt(d.atomic), 0n);
  const first = days[0]?.day ?? "";
  const last = days.at(-1)?.day ?? "";
  const bars = days.map((d, i) => {
    const height = max > 0n ? (Number((BigInt(d.atomic) * 10_000n) / max) / 10_000) * plotHeight : 0;
    const x = LEFT + i * slot + (slot - barWidth) / 2;
    const label = `${d.day}: ${usd(d.usd)} from ${d.paidCalls} paid call${d.paidCalls === 1 ? "" : "s"}`;
    return html`<g class="day" data-day="${d.day}"><title>${label}</title><rect class="hit" x="${(LEFT + i * slot).toFixed(1)}" y="${TOP}" width="${slot.toFixed(1)}" height="${plotHeight}"/><rect class="bar" data-day="${d.day}" data-atomic="${d.atomic}" x="${x.toFixed(1)}" y="${(TOP + plotHeight - height).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" aria-label="${label}"/></g>`;
  });
  const maxUsd = days.find((d) => BigInt(d.atomic) === max)?.usd ?? "0";
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">
<title id="chart-title">Revenue per day, ${first} to ${last}</title>
<desc id="chart-desc">${days.length} daily bars; ${usd(atomicToUsd(total))} in total; highest day ${usd(maxUsd)}.</desc>
<line class="axis" x1="${LEFT}" y1="${TOP + plotHeight}" x2="${WIDTH - 8}" y2="${TOP + plotHeight}"/>
<line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + plotHeight}"/>
<text class="tick" x="${LEFT - 6}" y="${TOP + 8}" text-anchor="end">${usd(maxUsd)}</text>
<text class="tick" x="${LEFT - 6}" y="${TOP + plotHeight}" text-anchor="end">$0</text>
<text class="tick" x="${LEFT}" y="${HEIGHT - 6}">${first}</text>
<text class="tick" x="${WIDTH - 8}" y="${HEIGHT - 6}" text-anchor="end">${last}</text>
${bars}
</svg>`;
}
