// Benchmark of pricing a chat request before the model runs: a 500-message, ~100 KB body is parsed,
// validated, checked and priced (token counting with gpt-tokenizer) the way POST /v1/llm/chat does it on the
// 402 and again on the paid retry. Baseline in the same run: JSON.parse of the same body text.
//
//   node_modules/.bin/node bench/llm-pricing.ts        (BENCH_ITERATIONS=60 by default)
//
// Scenarios, each timed per request over fresh copies of the body text:
//   JSON.parse          the baseline: what any JSON endpoint pays for this body
//   parse + validate    JSON.parse and the zod body schema
//   price, new body     parse, validate, check and price a body whose texts this process has never seen
//   price, paid retry   the same body again (the 402 priced it): message counts come from the token cache
//   price, next turn    the conversation with its two newest messages replaced: history from the cache
import os from "node:os";
import type { AnyProduct, HandlerContext } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { llmFamily } from "../src/products/llm/index.ts";

const ITERATIONS = Math.max(5, Number(process.env.BENCH_ITERATIONS ?? 60) || 60);
const MESSAGES = 500;
const TARGET_BYTES = 100 * 1024;
const AIM_MS = 5;

// ------------------------------------------------------------------ bodies

const WORDS = (
  "the of and to in a is that for it as was with be by on not he I this are or his from at which but have an they " +
  "you were her she there been one all we their has would when if so no will more about up what said out can time " +
  "them some into only other new could these like then two may any do first now its people my over than very just " +
  "also after where most know made well state under world life between years back request payment model token " +
  "server client price answer data cache network error retry invoice schema field value budget latency region " +
  "deploy config database query index table column release version feature customer account report summary"
).split(" ");
const PUNCTUATION = [".", ",", "?", "!", ":", ";"];

/** mulberry32: a seeded generator with 32-bit integer arithmetic, so texts never repeat within a run. */
let seed = 20261122;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function sentence(): string {
  const length = 6 + Math.floor(random() * 14);
  const words: string[] = [];
  for (let i = 0; i < length; i++) {
    const r = random();
    if (r < 0.06) words.push(String(Math.floor(random() * 100_000)));
    else if (r < 0.1)
      words.push(`${WORDS[Math.floor(random() * WORDS.length)]}_${Math.floor(random() * 100)}`);
    else words.push(WORDS[Math.floor(random() * WORDS.length)] as string);
  }
  const text = words.join(" ");
  return `${text[0]?.toUpperCase()}${text.slice(1)}${PUNCTUATION[Math.floor(random() * PUNCTUATION.length)]}`;
}

function message(index: number, bytes: number): { role: string; content: string } {
  let content = "";
  while (content.length < bytes) content += `${sentence()} `;
  return { role: index === 0 ? "system" : index % 2 ? "user" : "assistant", content: content.trim() };
}

/** A fresh 500-message body of about 100 KB, never seen before by the token cache. */
function freshBody(): {
  model: string;
  max_tokens: number;
  messages: Array<{ role: string; content: string }>;
} {
  const perMessage = Math.floor(TARGET_BYTES / MESSAGES) - 60;
  return {
    model: "gpt-4.1-mini",
    max_tokens: 2048,
    messages: Array.from({ length: MESSAGES }, (_, i) => message(i, perMessage)),
  };
}

// ------------------------------------------------------------------ the product, as the route runs it

const config = loadConfig({ UPSTREAMS: "replay", LOG_LEVEL: "silent" });
const started = performance.now();
const family = llmFamily(config);
const familyMs = performance.now() - started;
const chat = family.products.find((p) => p.sku === "llm.chat") as AnyProduct;
if (typeof chat.price !== "object" || !chat.body || !chat.check)
  throw new Error("llm.chat is not a priced POST");
const { dynamic } = chat.price;
const bodySchema = chat.body;
const check = chat.check;
// check() reads only ctx.upstreams.mode when the upstream is configured (replay here).
const ctx = { upstreams: { mode: "replay" } } as unknown as HandlerContext;

/** What the route does with a body before it can answer the 402 (or charge): parse, validate, check, price. */
async function priceRequest(text: string): Promise<string> {
  const body = bodySchema.parse(JSON.parse(text));
  const input = { query: {}, body };
  const problem = await check(input, ctx);
  if (problem) throw new Error(`refused: ${JSON.stringify(problem.body)}`);
  return dynamic(input);
}

// ------------------------------------------------------------------ timing

interface Figures {
  medianMs: number;
  p95Ms: number;
  /** Mean CPU time of this process per request: less sensitive than wall time to other load on the machine. */
  cpuMs: number;
}

async function time(run: (i: number) => unknown | Promise<unknown>): Promise<Figures> {
  const samples: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) {
    const start = performance.now();
    await run(i);
    samples.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = samples.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { medianMs: at(0.5), p95Ms: at(0.95), cpuMs: (cpu.user + cpu.system) / 1000 / ITERATIONS };
}

// ------------------------------------------------------------------ run

const generated = performance.now();
const bodies = Array.from({ length: ITERATIONS + 5 }, () => JSON.stringify(freshBody()));
const bytes = Math.round(bodies.reduce((n, b) => n + Buffer.byteLength(b), 0) / bodies.length);
console.log(
  `llm pricing bench: ${MESSAGES} messages, ~${(bytes / 1024).toFixed(1)} KB per body, ${ITERATIONS} requests per scenario ` +
    `(bodies generated in ${((performance.now() - generated) / 1000).toFixed(1)} s; family built in ${familyMs.toFixed(0)} ms, tokenizer load included)`,
);

// Warm up the JIT and gpt-tokenizer's word-level merge cache on bodies the scenarios never reuse.
for (const text of bodies.slice(ITERATIONS)) await priceRequest(text);
const measured = bodies.slice(0, ITERATIONS);

const baseline = await time((i) => JSON.parse(measured[i] as string));
const validate = await time((i) => bodySchema.parse(JSON.parse(measured[i] as string)));
const prices: string[] = [];
const fresh = await time(async (i) => prices.push(await priceRequest(measured[i] as string)));
// The paid retry sends the same bytes again: a new string, so nothing but the token cache is shared.
const retries = measured.map((text) => `${text} `);
const retryPrices: string[] = [];
const retry = await time(async (i) => retryPrices.push(await priceRequest(retries[i] as string)));
const nextTurns = measured.map((text) => {
  const body = JSON.parse(text) as ReturnType<typeof freshBody>;
  body.messages.splice(-2, 2, message(MESSAGES - 2, 170), message(MESSAGES - 1, 170));
  return JSON.stringify(body);
});
const nextTurn = await time((i) => priceRequest(nextTurns[i] as string));

const mismatches = prices.filter((price, i) => price !== retryPrices[i]).length;
if (mismatches > 0) throw new Error(`${mismatches} bodies priced differently on the retry`);

const rows: Array<[string, Figures]> = [
  ["JSON.parse (baseline)", baseline],
  ["parse + validate", validate],
  ["price, new body", fresh],
  ["price, paid retry", retry],
  ["price, next turn", nextTurn],
];
console.log("\nscenario                 median ms    p95 ms    cpu ms   × baseline (median wall, mean cpu)");
for (const [label, f] of rows) {
  console.log(
    `${label.padEnd(24)} ${f.medianMs.toFixed(2).padStart(9)} ${f.p95Ms.toFixed(2).padStart(9)} ${f.cpuMs.toFixed(2).padStart(9)} ` +
      `${(f.medianMs / baseline.medianMs).toFixed(1).padStart(10)} ${(f.cpuMs / baseline.cpuMs).toFixed(1).padStart(7)}`,
  );
}
const load = os.loadavg()[0] ?? 0;
console.log(
  `\nmachine: ${os.cpus().length} CPUs, load average ${load.toFixed(2)} over the last minute (wall times grow with it)`,
);
const sample = JSON.parse(measured[0] as string) as ReturnType<typeof freshBody>;
const quoted = bodySchema.parse(sample);
console.log(
  `\nexample: ${MESSAGES} messages, max_tokens ${sample.max_tokens} → ${dynamic({ query: {}, body: quoted })} USD ` +
    "(identical on the 402 and the paid retry for every body measured)",
);
const verdict = (ms: number) => (ms < AIM_MS ? "within" : "OVER");
console.log(
  `closing note: pricing a new ~100 KB, 500-message body takes ${fresh.medianMs.toFixed(2)} ms wall (median, ${verdict(fresh.medianMs)} ` +
    `the ${AIM_MS} ms aim) and ${fresh.cpuMs.toFixed(2)} ms CPU (${verdict(fresh.cpuMs)} it), ` +
    `${(fresh.cpuMs / baseline.cpuMs).toFixed(0)}× the CPU of JSON.parse of it; the paid retry of the same body ` +
    `${retry.medianMs.toFixed(2)} ms wall / ${retry.cpuMs.toFixed(2)} ms CPU and the next turn of the conversation ` +
    `${nextTurn.medianMs.toFixed(2)} ms / ${nextTurn.cpuMs.toFixed(2)} ms.`,
);
