// Benchmark of NVD keyword search: the inverted index (src/products/nvd/search-index.ts) over 50,000 synthetic
// recent CVEs against a linear scan of the same documents in the same run, plus the index's build time and
// memory, and a full rebuild from the store the way a node reloads it.
//
//   node_modules/.bin/node bench/nvd-search.ts     (NVD_BENCH_DOCS=50000, NVD_BENCH_QUERIES=2000;
//                                                   NVD_BENCH_SLOWEST=1 lists the slowest queries)
//
// The linear scan is given every advantage short of an index: each document's token set is computed up front
// and documents are kept in rank order, so a query only tests membership, document by document.
import v8 from "node:v8";
import vm from "node:vm";
import { LiveCveSearch } from "../src/products/nvd/live-search.ts";
import { NvdRepository } from "../src/products/nvd/repository.ts";
import { CveSearchIndex, compareRank, type IndexDoc, indexTokens } from "../src/products/nvd/search-index.ts";
import { CVE_SYNC_STATE, INITIAL_SYNC_STATE } from "../src/products/nvd/sync-state.ts";
import { NVD_MIGRATIONS } from "../src/products/nvd/tables.ts";
import { openStore } from "../src/store/store.ts";
import { knob, percentile, seededRandom } from "./common.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const DOCS = knob("NVD_BENCH_DOCS", 50_000, 1000, 1_000_000);
const QUERIES = knob("NVD_BENCH_QUERIES", 2000, 100, 100_000);
const SCAN_QUERIES = Math.min(QUERIES, 400);
const LIMIT = 25;

// Deterministic pseudo-random numbers, so every run searches the same corpus.
const { random, pick: skewedPick } = seededRandom(20261122);
/** Skewed towards the start of the list, as real vendors, products and words are. */
const pick = <T>(items: readonly T[], skew = 2): T => skewedPick(items, skew);

const SYLLABLES = [
  "ab",
  "cor",
  "dex",
  "el",
  "fin",
  "gra",
  "hub",
  "ix",
  "jet",
  "kon",
  "lum",
  "max",
  "nov",
  "or",
];
const syllableWord = (n: number) => Array.from({ length: n }, () => pick(SYLLABLES, 1)).join("");
const VENDORS = Array.from({ length: 3000 }, () => syllableWord(2 + Math.floor(random() * 2)));
const PRODUCTS = Array.from({ length: 8000 }, () => syllableWord(2 + Math.floor(random() * 3)));
const FLAWS = [
  "cross-site scripting (XSS)",
  "SQL injection",
  "heap-based buffer overflow",
  "stack-based buffer overflow",
  "use-after-free",
  "path traversal",
  "improper authentication",
  "missing authorization",
  "server-side request forgery (SSRF)",
  "cross-site request forgery (CSRF)",
  "OS command injection",
  "insecure deserialization",
  "integer overflow",
  "out-of-bounds read",
  "out-of-bounds write",
  "NULL pointer dereference",
  "XML external entity (XXE)",
  "open redirect",
  "race condition",
  "improper certificate validation",
];
const CWES = [79, 89, 122, 121, 416, 22, 287, 862, 918, 352, 78, 502, 190, 125, 787, 476, 611, 601, 362, 295];
const COMPONENTS = [
  "login page",
  "admin panel",
  "file upload handler",
  "REST API",
  "web management interface",
  "TLS handshake parser",
  "image decoder",
  "kernel driver",
  "search endpoint",
  "plugin installer",
  "update client",
  "SNMP agent",
  "report module",
  "session manager",
];
const EFFECTS = [
  "execute arbitrary code",
  "read arbitrary files",
  "cause a denial of service",
  "gain elevated privileges",
  "bypass authentication",
  "inject arbitrary web script or HTML",
  "obtain sensitive information",
  "execute arbitrary SQL commands",
];
const ACTORS = [
  "a remote unauthenticated attacker",
  "an authenticated user",
  "a local attacker",
  "remote attackers",
];
const FILLER = [
  "via a crafted request",
  "through the id parameter",
  "when debug mode is enabled",
  "in default configurations",
];

function version(): string {
  return `${Math.floor(random() * 12)}.${Math.floor(random() * 30)}.${Math.floor(random() * 10)}`;
}

function syntheticDoc(i: number, now: number): IndexDoc {
  const flaw = Math.floor(random() ** 1.5 * FLAWS.length);
  const vendor = pick(VENDORS, 2.5);
  const product = pick(PRODUCTS, 2.5);
  const id = `CVE-2026-${String(20000 + i)}`;
  const published = new Date(now - Math.floor(random() * 120 * 86_400_000)).toISOString();
  const text = [
    id,
    `A ${FLAWS[flaw]} vulnerability in the ${pick(COMPONENTS, 1)} of ${vendor} ${product} ${version()} through`,
    `${version()} allows ${pick(ACTORS, 1)} to ${pick(EFFECTS, 1)} ${pick(FILLER, 1)}.`,
    random() < 0.3 ? `This issue affects ${product} before ${version()}.` : "",
    `CWE-${CWES[flaw]}`,
    `${vendor} ${product}_${pick(["server", "firmware", "client", "portal", "suite"], 1)}`,
  ].join(" ");
  return { id, published, text };
}

/** Queries like a buyer's: one to three words taken from a random record, plus common-word and miss queries. */
function syntheticQueries(docs: IndexDoc[], n: number): string[] {
  const queries: string[] = [];
  for (let i = 0; i < n; i++) {
    const roll = random();
    if (roll < 0.1) {
      queries.push(
        pick(["vulnerability", "remote attackers", "sql injection", "cross-site scripting", "overflow"], 1),
      );
    } else if (roll < 0.15) {
      queries.push(`${syllableWord(5)} exploit`);
    } else if (roll < 0.2) {
      queries.push(`CWE-${pick(CWES, 1)}`);
    } else {
      const words = (docs[Math.floor(random() * docs.length)] as IndexDoc).text
        .split(/\s+/)
        .filter((w) => /^[a-z]{3,}$/i.test(w));
      const take = 1 + Math.floor(random() * 3);
      queries.push(Array.from({ length: take }, () => pick(words, 1)).join(" "));
    }
  }
  return queries;
}

function summarise(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) as number,
    mean: sorted.reduce((s, v) => s + v, 0) / sorted.length,
  };
}

const ms = (v: number) => `${v.toFixed(3)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main() {
  const now = Date.now();
  const docs = Array.from({ length: DOCS }, (_, i) => syntheticDoc(i, now));
  const queries = syntheticQueries(docs, QUERIES);
  console.log(
    `corpus: ${DOCS} synthetic CVEs (${mb(docs.reduce((s, d) => s + d.text.length, 0))} of text), ${QUERIES} queries`,
  );

  gc();
  // The index is typed arrays (ArrayBuffers outside the heap) plus a little heap.
  const held = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heapBefore = held();
  const buildStart = performance.now();
  const index = CveSearchIndex.build(docs);
  const buildMs = performance.now() - buildStart;
  gc();
  const indexBytes = held() - heapBefore;
  console.log(
    `index: built in ${ms(buildMs)}; ${index.vocabulary} tokens; heap and ArrayBuffers +${mb(indexBytes)}`,
  );

  // The baseline: documents in rank order with their token sets ready.
  const ranked = [...docs].sort(compareRank);
  const scanStart = performance.now();
  const tokenSets = ranked.map((d) => indexTokens(d.text));
  console.log(`linear scan: token sets prepared in ${ms(performance.now() - scanStart)}`);
  function linearScan(query: string): { total: number; ids: string[] } {
    const terms = index.termsOf(query);
    const ids: string[] = [];
    let total = 0;
    if (terms.length === 0) return { total, ids };
    for (let i = 0; i < ranked.length; i++) {
      const tokens = tokenSets[i] as Set<string>;
      if (terms.every((t) => tokens.has(t))) {
        total++;
        if (ids.length < LIMIT) ids.push((ranked[i] as IndexDoc).id);
      }
    }
    return { total, ids };
  }

  // Same answers, or the comparison means nothing.
  for (const query of queries.slice(0, SCAN_QUERIES)) {
    const a = index.search(query, LIMIT);
    const b = linearScan(query);
    if (a.total !== b.total || a.ids.join() !== b.ids.join()) {
      throw new Error(`index and scan disagree on "${query}": ${a.total} vs ${b.total}`);
    }
  }

  for (const query of queries.slice(0, 200)) index.search(query, LIMIT); // warm-up
  const indexLatencies: number[] = [];
  let hits = 0;
  const slowest: Array<[number, string, number]> = [];
  for (const query of queries) {
    const start = performance.now();
    const result = index.search(query, LIMIT);
    const took = performance.now() - start;
    indexLatencies.push(took);
    slowest.push([took, query, result.total]);
    if (result.total > 0) hits++;
  }
  if (process.env.NVD_BENCH_SLOWEST) console.log(slowest.sort((a, b) => b[0] - a[0]).slice(0, 15));
  const scanLatencies: number[] = [];
  for (const query of queries.slice(0, SCAN_QUERIES)) {
    const start = performance.now();
    linearScan(query);
    scanLatencies.push(performance.now() - start);
  }
  const indexed = summarise(indexLatencies);
  const scanned = summarise(scanLatencies);
  console.log(`queries with hits: ${hits} of ${QUERIES}`);
  console.log(
    `index       (${QUERIES} queries): p50 ${ms(indexed.p50)}  p99 ${ms(indexed.p99)}  max ${ms(indexed.max)}  mean ${ms(indexed.mean)}`,
  );
  console.log(
    `linear scan (${SCAN_QUERIES} queries): p50 ${ms(scanned.p50)}  p99 ${ms(scanned.p99)}  max ${ms(scanned.max)}  mean ${ms(scanned.mean)}`,
  );
  console.log(
    `index vs scan: ${(scanned.p50 / indexed.p50).toFixed(0)}x faster at p50, ${(scanned.p99 / indexed.p99).toFixed(0)}x at p99; aim p99 < 5 ms: ${indexed.p99 < 5 ? "met" : "MISSED"}`,
  );

  // A node's reload: read the window from the store (SQLite in memory here) and build.
  const store = await openStore({ kind: "sqlite", file: ":memory:" }, NVD_MIGRATIONS);
  try {
    const repository = NvdRepository.of(store);
    const insertStart = performance.now();
    const fetchedAt = new Date(now).toISOString();
    for (let i = 0; i < docs.length; i += 5000) {
      await repository.upsertCves(
        docs.slice(i, i + 5000).map((d) => ({
          cve: {
            id: d.id,
            published: d.published,
            lastModified: d.published,
            vulnStatus: "Analyzed",
            description: d.text,
            cvss: null,
            cwes: [],
            affected: [],
            references: [],
            nvdKev: null,
          },
          raw: { id: d.id },
        })),
        "sync",
        fetchedAt,
        false,
      );
    }
    await repository.putState(CVE_SYNC_STATE, {
      ...INITIAL_SYNC_STATE,
      coveredSince: fetchedAt,
      generation: 1,
    });
    const insertMs = performance.now() - insertStart;
    const live = new LiveCveSearch(120);
    const reloadStart = performance.now();
    const loaded = await live.reload({ store });
    console.log(
      `reload from the store: ${loaded.index.size} records in ${ms(performance.now() - reloadStart)} (read ${loaded.readMs} ms, build ${loaded.buildMs} ms); store filled in ${ms(insertMs)}`,
    );
  } finally {
    await store.close();
  }
}

await main();
