// Benchmark of OFAC name screening (src/products/ofac/screen.ts): the prefiltered index over a synthetic list
// the size of the real SDN + consolidated lists (about 18,000 entries, 40,000 names with aliases) against a
// brute-force Jaro-Winkler scan of every name in the same run, plus the index's build time and memory.
//
//   node_modules/.bin/node bench/ofac-screening.ts   (OFAC_BENCH_ENTRIES=18000, OFAC_BENCH_QUERIES=2000,
//                                                      OFAC_BENCH_SCAN_QUERIES=200)
//
// The brute force scores every primary name and strong alias with the same scoring function, so it finds
// every hit by definition; the run also reports how many of those hits the prefilter (OFAC's first-letter and
// 50 % edit-distance rule) kept.
import v8 from "node:v8";
import vm from "node:vm";
import type { EntryType, SanctionEntry } from "../src/products/ofac/parse.ts";
import { DEFAULT_MIN_SCORE } from "../src/products/ofac/query.ts";
import { ScreeningIndex } from "../src/products/ofac/screen.ts";
import { knob, percentile, seededRandom } from "./common.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const ENTRIES = knob("OFAC_BENCH_ENTRIES", 18_000, 1000, 200_000);
const QUERIES = knob("OFAC_BENCH_QUERIES", 2000, 100, 100_000);
const SCAN_QUERIES = Math.min(QUERIES, knob("OFAC_BENCH_SCAN_QUERIES", 200, 20, 10_000));

// Deterministic pseudo-random numbers, so every run screens the same list.
const { random, pick: skewedPick } = seededRandom(20261125);
const pick = <T>(items: readonly T[], skew = 1.6): T => skewedPick(items, skew);

// Name parts shaped like the list's: transliterated given names are few and repeat a lot; surnames and company
// words are many.
const GIVEN = [
  "Mohammad",
  "Ali",
  "Ahmad",
  "Hassan",
  "Hussein",
  "Abdul",
  "Omar",
  "Ibrahim",
  "Yusuf",
  "Khalid",
  "Vladimir",
  "Sergey",
  "Aleksandr",
  "Dmitriy",
  "Igor",
  "Oleg",
  "Andrey",
  "Yevgeniy",
  "Nikolay",
  "Viktor",
  "Jose",
  "Luis",
  "Carlos",
  "Juan",
  "Miguel",
  "Jorge",
  "Kim",
  "Li",
  "Wang",
  "Zhang",
  "Chen",
  "Ri",
  "Pak",
  "Said",
  "Mahmoud",
  "Mustafa",
  "Abdullah",
  "Rahman",
  "Karim",
  "Tariq",
  "Nasser",
  "Faisal",
  "Hamid",
  "Reza",
  "Mehdi",
  "Javad",
];
const SYLLABLES = [
  "ka",
  "ro",
  "va",
  "li",
  "mo",
  "sha",
  "de",
  "no",
  "ri",
  "ta",
  "gar",
  "bel",
  "zan",
  "kov",
  "rin",
  "tor",
  "mir",
  "hab",
  "dul",
  "sel",
  "nar",
  "pet",
  "vin",
  "lo",
  "es",
  "an",
  "ov",
  "ev",
  "ich",
  "ova",
  "ez",
  "ar",
  "im",
  "un",
];
const COMPANY_WORDS = [
  "TRADING",
  "SHIPPING",
  "INTERNATIONAL",
  "GROUP",
  "INDUSTRIAL",
  "BANK",
  "ENERGY",
  "PETROLEUM",
  "MARINE",
  "HOLDING",
  "INVESTMENT",
  "TECHNOLOGY",
  "GENERAL",
  "NATIONAL",
  "DEVELOPMENT",
  "ENGINEERING",
  "LOGISTICS",
];
const LEGAL = ["LLC", "LTD", "CO", "JSC", "FZE", "S.A.", "GMBH", ""];

function word(parts = 2 + Math.floor(random() * 2)): string {
  let w = "";
  for (let i = 0; i < parts; i++) w += pick(SYLLABLES, 1);
  return w;
}
const cap = (w: string) => w[0]?.toUpperCase() + w.slice(1);

/** A spelling variant: a vowel changed, a letter doubled or dropped (how transliterations differ). */
function variant(name: string): string {
  const chars = [...name];
  const i = 1 + Math.floor(random() * Math.max(1, chars.length - 2));
  const roll = random();
  if (roll < 0.4 && /[aeiouy]/i.test(chars[i] ?? "")) chars[i] = pick(["a", "e", "i", "o", "u", "y"], 1);
  else if (roll < 0.7) chars.splice(i, 0, chars[i] ?? "");
  else chars.splice(i, 1);
  return chars.join("");
}

function makeEntry(uid: number): SanctionEntry {
  const roll = random();
  const type: EntryType = roll < 0.55 ? "individual" : roll < 0.93 ? "entity" : "vessel";
  let firstName: string | null = null;
  let lastName: string;
  if (type === "individual") {
    firstName = `${pick(GIVEN)} ${random() < 0.6 ? cap(word()) : ""}`.trim();
    lastName = word(3).toUpperCase();
  } else if (type === "entity") {
    lastName = [
      word().toUpperCase(),
      pick(COMPANY_WORDS),
      random() < 0.5 ? pick(COMPANY_WORDS) : "",
      pick(LEGAL),
    ]
      .filter((w) => w !== "")
      .join(" ");
  } else {
    lastName =
      `${word().toUpperCase()} ${random() < 0.5 ? word().toUpperCase() : ""} ${Math.floor(random() * 9) + 1}`
        .replace(/\s+/g, " ")
        .trim();
  }
  const aliases: SanctionEntry["aliases"] = [];
  // About 1.2 aliases per entry: 18,000 entries give about 40,000 names, as on the real lists.
  const count = random() < 0.4 ? 0 : 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const weak = random() < 0.15;
    aliases.push({
      kind: random() < 0.85 ? "aka" : "fka",
      category: weak ? "weak" : "strong",
      firstName: firstName ? variant(firstName) : null,
      lastName: weak ? word(2).toUpperCase() : variant(lastName),
    });
  }
  return {
    uid,
    list: random() < 0.9 ? "SDN" : "CONSOLIDATED",
    type,
    firstName,
    lastName,
    title: null,
    programs: ["SDGT"],
    aliases,
    addresses: [{ street: null, city: "City", stateOrProvince: null, postalCode: null, country: "Country" }],
    ids: [],
    datesOfBirth: type === "individual" ? ["01 Jan 1970"] : [],
    placesOfBirth: [],
    nationalities: [],
    citizenships: [],
    vessel: null,
    remarks: null,
  };
}

const ms = (n: number) => `${n.toFixed(3)} ms`;

const entries = Array.from({ length: ENTRIES }, (_, i) => makeEntry(10_000 + i));
gc();
const heapBefore = process.memoryUsage().heapUsed;
const buildStarted = performance.now();
const index = new ScreeningIndex(entries);
const buildMs = performance.now() - buildStarted;
gc();
const heapAfter = process.memoryUsage().heapUsed;

// Queries: a third listed names as listed (other order for people), a third spelling variants of listed names,
// a third names that are not listed but are built from the same parts.
const queries: string[] = [];
for (let i = 0; i < QUERIES; i++) {
  const entry = entries[Math.floor(random() * entries.length)] as SanctionEntry;
  const listed = entry.firstName ? `${entry.firstName} ${entry.lastName}` : entry.lastName;
  const kind = i % 3;
  if (kind === 0) queries.push(entry.firstName ? `${entry.lastName}, ${entry.firstName}` : listed);
  else if (kind === 1) queries.push(variant(listed));
  else
    queries.push(random() < 0.5 ? `${pick(GIVEN)} ${cap(word(3))}` : `${cap(word())} ${pick(COMPANY_WORDS)}`);
}

for (const q of queries.slice(0, 200)) index.screen(q, { minScore: DEFAULT_MIN_SCORE, limit: 25 }); // warm-up

function measure(cold: boolean): { times: number[]; scored: number; hits: number } {
  const times: number[] = [];
  let scored = 0;
  let hits = 0;
  for (const q of queries) {
    if (cold) index.forgetPrefilterCache();
    const started = performance.now();
    const result = index.screen(q, { minScore: DEFAULT_MIN_SCORE, limit: 25 });
    times.push(performance.now() - started);
    scored += result.namesScored;
    hits += result.totalHits;
  }
  times.sort((a, b) => a - b);
  return { times, scored, hits };
}
// Cold: every query computes its prefilter from the dictionary. Warm: words asked before (given names,
// company words) reuse their prefilter answer, as a running service does.
const cold = measure(true);
const { times, scored, hits } = measure(false);

const scanTimes: number[] = [];
let bruteHits = 0;
let keptHits = 0;
for (const q of queries.slice(0, SCAN_QUERIES)) {
  const started = performance.now();
  const brute = index.bruteForce(q, DEFAULT_MIN_SCORE);
  scanTimes.push(performance.now() - started);
  const found = new Set(
    index.screen(q, { minScore: DEFAULT_MIN_SCORE, limit: 100_000 }).hits.map((h) => h.entry.uid),
  );
  bruteHits += brute.size;
  for (const uid of brute) if (found.has(uid)) keptHits++;
}
scanTimes.sort((a, b) => a - b);

const p50 = percentile(times, 50);
const coldP50 = percentile(cold.times, 50);
const p99 = percentile(times, 99);
const scanP50 = percentile(scanTimes, 50);
const scanP99 = percentile(scanTimes, 99);
console.log(`OFAC screening benchmark (minScore ${DEFAULT_MIN_SCORE})`);
console.log(
  `list: ${index.entries.length} entries, ${index.names.length} names (primary + aliases), ${index.dictionarySize} dictionary words`,
);
console.log(
  `index build: ${buildMs.toFixed(0)} ms; heap of index and entries: ${((heapAfter - heapBefore) / 1048576).toFixed(1)} MB (measured), ${(index.approximateBytes() / 1048576).toFixed(1)} MB (status route's estimate)`,
);
console.log(
  `indexed screening, cold prefilter cache, ${QUERIES} queries: p50 ${ms(coldP50)}, p99 ${ms(percentile(cold.times, 99))}`,
);
console.log(
  `indexed screening, ${QUERIES} queries: p50 ${ms(p50)}, p99 ${ms(p99)}, mean ${ms(times.reduce((a, b) => a + b, 0) / times.length)}; names past the prefilter per query ${(scored / QUERIES).toFixed(0)}; hits per query ${(hits / QUERIES).toFixed(2)}`,
);
console.log(`brute-force Jaro-Winkler scan, ${SCAN_QUERIES} queries: p50 ${ms(scanP50)}, p99 ${ms(scanP99)}`);
console.log(
  `ratio brute force / index: p50 ${(scanP50 / p50).toFixed(1)}x, p99 ${(scanP99 / p99).toFixed(1)}x`,
);
console.log(
  `hits the prefilter kept: ${keptHits} of ${bruteHits} brute-force hits (${bruteHits ? ((100 * keptHits) / bruteHits).toFixed(1) : "100"} %)`,
);
console.log(
  `aim p50 < 5 ms: ${p50 < 5 ? "met" : "NOT met"} (cold: ${coldP50 < 5 ? "met" : "NOT met"}); load average ${(await import("node:os")).loadavg()[0]?.toFixed(1)} on ${(await import("node:os")).availableParallelism()} cores`,
);
