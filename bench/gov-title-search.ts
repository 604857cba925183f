import { type Kysely, sql } from "kysely";
import { GOV_MIGRATIONS } from "../src/products/gov/shared/migrations.ts";
import { searchWords } from "../src/products/gov/shared/query.ts";
import { GovTitleIndex, type IndexEntry } from "../src/products/gov/shared/title-index.ts";
import { openStore, type Store } from "../src/store/store.ts";
import { knob, percentile, seededRandom, timeQueries } from "./common.ts";
import { onScratchPostgres } from "./scratch-postgres.ts";

const TITLES = knob("GOV_BENCH_TITLES", 100_000, 1000, 5_000_000);
const QUERIES = knob("GOV_BENCH_QUERIES", 1000, 100, 100_000);
const SCAN_QUERIES = Math.min(QUERIES, 100);
/** The aim for every title search on either store (as for company names at 5 M). */
const AIM_P99_MS = 50;
const PG_URL = process.env.GOV_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const { random, pick: skewedPick } = seededRandom(20261125);
const pick = <T>(items: readonly T[], skew = 1.6): T => skewedPick(items, skew);

// Titles drawn the way real ones are: a few very common heads (Gesetz, Verordnung, Regulation, ustawa …),
// then words from a vocabulary of 6,000 synthetic stems with a Zipf-like frequency, often joined into German-
// style compounds, with the diacritics of German and Polish.
const SYLLABLES = [
  "da",
  "ten",
  "schutz",
  "ver",
  "kehr",
  "stra",
  "ßen",
  "bür",
  "ger",
  "steu",
  "er",
  "um",
  "welt",
  "ar",
  "beit",
  "ge",
  "sund",
  "heit",
  "bau",
  "ener",
  "gie",
  "han",
  "del",
  "was",
  "ser",
  "luft",
  "tier",
  "pflan",
  "zen",
  "le",
  "bens",
  "mit",
  "tel",
  "so",
  "zi",
  "al",
  "ren",
  "fi",
  "nan",
  "ce",
  "pri",
  "va",
  "cy",
  "ro",
  "ad",
  "la",
  "bour",
  "och",
  "ro",
  "na",
  "śro",
  "do",
  "wi",
  "sko",
  "zdro",
  "wie",
  "po",
  "da",
  "tek",
  "pra",
  "wo",
  "ży",
  "wność",
  "ry",
  "nek",
  "nad",
  "zór",
  "mar",
  "ket",
  "tra",
  "de",
  "ho",
  "us",
  "ing",
  "edu",
  "ca",
  "tion",
  "min",
  "ist",
];
const VOCABULARY = Array.from({ length: 6000 }, () => {
  const n = 2 + Math.floor(random() * 3);
  return Array.from({ length: n }, () => pick(SYLLABLES, 1)).join("");
});
const HEADS = ["gesetz", "verordnung", "ordnung", "act", "regulation", "ustawa", "rozporządzenie", "code"];
const LINKS = ["über", "zur", "of", "and", "o", "dla", "für", "the", "des", "der"];

function title(): string {
  const words: string[] = [];
  const parts = 2 + Math.floor(random() * 4);
  for (let i = 0; i < parts; i++) {
    const word =
      random() < 0.4
        ? `${pick(VOCABULARY, 2.5)}${pick(VOCABULARY, 2.5)}${pick(HEADS)}`
        : pick(VOCABULARY, 2.5);
    words.push(word[0]?.toUpperCase() + word.slice(1));
    if (random() < 0.4) words.push(pick(LINKS));
  }
  if (random() < 0.5) words.push(pick(HEADS)[0]?.toUpperCase() + pick(HEADS).slice(1));
  return words.join(" ");
}

const titles: string[] = Array.from({ length: TITLES }, title);
const LINK_WORDS = new Set(LINKS.map((w) => searchWords(w)[0]));
// Buyers search content words: a query is one or two consecutive title words other than link words (which the
// index drops anyway when a query has others).
const queries: string[] = Array.from({ length: QUERIES }, () => {
  const base = searchWords(pick(titles, 1)).filter((w) => !LINK_WORDS.has(w));
  const n = 1 + Math.floor(random() * 2);
  const start = Math.floor(random() * Math.max(1, base.length - n));
  // Part of a word sometimes, as buyers type: "datenschutz" inside a compound.
  return base
    .slice(start, start + n)
    .map((w) => (w.length > 8 && random() < 0.5 ? w.slice(2, 2 + Math.max(4, Math.floor(w.length / 2))) : w))
    .join(" ");
});

function* entries(): Generator<IndexEntry> {
  for (let i = 0; i < titles.length; i++) {
    yield { id: `act-${i}`, title: titles[i] as string, body: { id: `act-${i}`, title: titles[i] } };
  }
}

/** Milliseconds per query, ascending; GOV_BENCH_SLOWEST=1 prints the slowest queries under `label`. */
const time = (run: (q: string) => Promise<unknown>, list: string[], label = "") =>
  timeQueries(run, list, label, Boolean(process.env.GOV_BENCH_SLOWEST));

async function measure(label: string, store: Store): Promise<void> {
  const index = GovTitleIndex.of(store);
  const built = process.hrtime.bigint();
  await index.replaceCollection("bench", entries());
  const buildMs = Number(process.hrtime.bigint() - built) / 1e6;
  await time((q) => index.search("bench", q, 25), queries.slice(0, 50)); // warm-up
  const indexed = await time((q) => index.search("bench", q, 25), queries, label);
  const db = store.db as unknown as Kysely<unknown>;
  const scan = await time(
    async (q) => {
      const words = searchWords(q);
      const where = sql.join(
        words.map((w) => sql`lower(title) like ${`%${w}%`}`),
        sql` and `,
      );
      await sql`select body from gov_index_entries where collection = 'bench' and ${where} limit 25`.execute(
        db,
      );
      await sql`select count(*) from gov_index_entries where collection = 'bench' and ${where}`.execute(db);
    },
    queries.slice(0, SCAN_QUERIES),
  );
  const row = (name: string, t: number[]) =>
    `  ${name.padEnd(22)} p50 ${percentile(t, 50).toFixed(3)} ms   p99 ${percentile(t, 99).toFixed(3)} ms`;
  console.log(`${label}: ${TITLES.toLocaleString("en")} titles, built in ${(buildMs / 1000).toFixed(1)} s`);
  console.log(row(`index (${queries.length} q)`, indexed));
  console.log(row(`LIKE scan (${scan.length} q)`, scan));
  const p99 = percentile(indexed, 99);
  console.log(
    `  ratio scan/index      p50 ${(percentile(scan, 50) / percentile(indexed, 50)).toFixed(0)}×   ` +
      `p99 ${(percentile(scan, 99) / p99).toFixed(0)}×   aim p99 < 5 ms: ${p99 < 5 ? "met" : "NOT met"}`,
  );
  console.log(
    `  aim p99 ≤ ${AIM_P99_MS} ms: p50 ${percentile(indexed, 50).toFixed(2)} / p95 ${percentile(indexed, 95).toFixed(2)} / ` +
      `p99 ${p99.toFixed(2)} ms: ${p99 <= AIM_P99_MS ? "met" : "NOT met"}`,
  );
}

const sqlite = await openStore({ kind: "sqlite", file: ":memory:" }, GOV_MIGRATIONS);
await measure("SQLite (FTS5)", sqlite);
await sqlite.close();

await onScratchPostgres(PG_URL, GOV_MIGRATIONS, (store) => measure("PostgreSQL (GIN full text)", store));
