import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Kysely, sql } from "kysely";
import {
  type BulkImportSource,
  type BulkItem,
  runBulkImport,
} from "../src/products/gov/shared/bulk-import.ts";
import { GOV_MIGRATIONS } from "../src/products/gov/shared/migrations.ts";
import { searchWords } from "../src/products/gov/shared/query.ts";
import { GovTitleIndex } from "../src/products/gov/shared/title-index.ts";
import { openStore, type Store } from "../src/store/store.ts";
import { knob, percentile, seededRandom, timeQueries } from "./common.ts";
import { onScratchPostgres } from "./scratch-postgres.ts";

const NAMES = knob("COMPANY_BENCH_NAMES", 5_000_000, 1000, 50_000_000);
const QUERIES = knob("COMPANY_BENCH_QUERIES", 2000, 100, 100_000);
const SCANS = knob("COMPANY_BENCH_SCANS", 10, 1, 1000);
const INNER_WORDS = knob("COMPANY_BENCH_INNER_WORDS", 0, 0, 1) === 1;
const STORES = (process.env.COMPANY_BENCH_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim());
const PG_URL = process.env.COMPANY_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
// Kept between runs when set (an import of the same size is then not run again): a SQLite file, a PG schema.
const KEEP_SQLITE = process.env.COMPANY_BENCH_SQLITE_FILE;
const KEEP_PG_SCHEMA = process.env.COMPANY_BENCH_PG_SCHEMA;
const PER_FILE = 500_000;
/** The aim at 5 M names, on each store: every search answered within 50 ms at the 99th percentile. */
const AIM_P99_MS = 50;
const COLLECTION = "co-bench";

// Vocabularies: a few very common words (LTDA, COMERCIO, SERVICOS, …) and long tails of synthetic surnames and
// stems, drawn with a Zipf-like skew, as register names are.
const { random: vocabularyRandom, pick: vocabularyPick } = seededRandom(14_2026);
const SYLLABLES = (
  "ma ri a jo se sil va sou za oli vei ra per ei ro al ves li ma gon cal ves co sta car va lho ro dri gues " +
  "fer nan des mar tins ara u jo bar bo sa ri bei ro men des nu nes ca bral mo rei ra pin to fre i tas " +
  "smith john son brown wil liams mil ler da vis gar cia mar ti nez lo pez schmidt mul ler mey er wag ner " +
  "du bois la fon taine ber nard tho mas mo reau lau rent"
).split(" ");
const word = () =>
  Array.from({ length: 2 + Math.floor(vocabularyRandom() * 2) }, () => vocabularyPick(SYLLABLES, 1)).join("");
const SURNAMES = Array.from({ length: 40_000 }, word).map((w) => w.toUpperCase());
const FIRST_NAMES = Array.from({ length: 3000 }, word).map((w) => w.toUpperCase());
const PLACES = Array.from({ length: 5500 }, word).map((w) => w.toUpperCase());
const PT_ACTIVITIES = (
  "COMERCIO SERVICOS TRANSPORTES CONSTRUCOES ALIMENTOS PADARIA RESTAURANTE MERCADO FARMACIA AUTO PECAS " +
  "CONFECCOES INDUSTRIA DISTRIBUIDORA ENGENHARIA CONSULTORIA TECNOLOGIA INFORMATICA IMOVEIS AGROPECUARIA " +
  "TRANSPORTADORA LOGISTICA EDUCACAO SAUDE CLINICA ODONTOLOGIA ADVOCACIA CONTABILIDADE MATERIAIS ELETRICOS " +
  "BEBIDAS MOVEIS CALCADOS VESTUARIO SUPERMERCADO LANCHONETE OFICINA MECANICA"
).split(" ");
const PT_LINKS = ["DE", "E", "DO", "DA", "DOS"];
const PT_SUFFIXES = ["LTDA", "LTDA", "LTDA", "EIRELI", "SA", "ME", "EPP", "S/A", "SOCIEDADE SIMPLES"];
const EN_WORDS = (
  "GLOBAL SOLUTIONS TECHNOLOGIES SYSTEMS CAPITAL PARTNERS HOLDINGS VENTURES DIGITAL SERVICES TRADING " +
  "INTERNATIONAL CONSULTING GROUP LOGISTICS ENERGY MEDIA FOODS PROPERTIES INVESTMENTS NETWORKS"
).split(" ");
const EN_SUFFIXES = ["LTD", "LIMITED", "INC", "LLC", "PLC", "CORP"];
const OTHER = [
  ["GMBH", "HANDEL", "BAU", "TECHNIK", "VERWALTUNGS", "IMMOBILIEN"],
  ["SARL", "SAS", "CONSEIL", "BATIMENT", "SERVICES", "DISTRIBUTION"],
  ["SL", "SA", "CONSTRUCCIONES", "INVERSIONES", "COMERCIAL", "SERVICIOS"],
];

function name(random: () => number, pick: <T>(items: readonly T[], skew: number) => T): string {
  const kind = random();
  if (kind < 0.45) {
    // Sole traders: a person's name (the CPF already stripped).
    return [pick(FIRST_NAMES, 2), pick(SURNAMES, 2.5), random() < 0.6 ? pick(SURNAMES, 2.5) : ""]
      .filter(Boolean)
      .join(" ");
  }
  if (kind < 0.75) {
    const parts = [pick(PT_ACTIVITIES, 1.8)];
    if (random() < 0.5) parts.push(pick(PT_LINKS, 1.5), pick(PT_ACTIVITIES, 1.8));
    parts.push(random() < 0.5 ? pick(SURNAMES, 2.5) : pick(PLACES, 2));
    if (random() < 0.3) parts.push("&", pick(SURNAMES, 2.5));
    parts.push(pick(PT_SUFFIXES, 1));
    return parts.join(" ");
  }
  if (kind < 0.9) {
    return [
      pick(SURNAMES, 2.5),
      pick(EN_WORDS, 1.5),
      random() < 0.5 ? pick(EN_WORDS, 1.5) : "",
      pick(EN_SUFFIXES, 1),
    ]
      .filter(Boolean)
      .join(" ");
  }
  const language = pick(OTHER, 1);
  return [pick(SURNAMES, 2.5), pick(language.slice(1), 1), language[0]].join(" ");
}

/** Row `row` (from 1) of file `file`: the same every time it is read (a resumed import reads the same rows). */
function company(file: number, row: number) {
  const { random, pick } = seededRandom(file * 1_000_003 + row);
  const companyName = name(random, pick);
  const city = pick(PLACES, 2);
  const trade = random() < 0.5 ? `${pick(PT_ACTIVITIES, 1.8)} ${pick(SURNAMES, 2.5)}` : null;
  const id = String(file * PER_FILE + row).padStart(14, "0");
  // A body as wide as a served Brazilian establishment (about 600 bytes of JSON).
  const body = {
    id,
    name: companyName,
    legalForm: "2062 Sociedade Empresária Limitada",
    status: "ATIVA",
    active: true,
    address: `RUA ${pick(SURNAMES, 2.5)}, ${Math.floor(random() * 2000)}, SALA ${Math.floor(random() * 99)}, CENTRO, 01001-000, ${city} - SP`,
    created: "2015-03-02",
    sourceUrl: `https://solucoes.receita.fazenda.gov.br/Servicos/cnpjreva/Cnpjreva_Solicitacao.asp?cnpj=${id}`,
    tradeName: trade,
    headOffice: true,
    soleTrader: false,
    mei: false,
    statusDate: "2015-03-02",
    statusReason: null,
    activity: { code: "4712100", name: "Comércio varejista de mercadorias em geral", secondary: ["4721102"] },
    contact: { phones: ["(11) 3333-4444"], email: "contato@example.com", note: null },
    city,
    uf: "SP",
    shareCapital: { value: 10000, currency: "BRL" },
    size: "MICRO EMPRESA",
    release: "2026-11",
  };
  return { id, title: companyName, alt: [trade, city, "SP"].filter(Boolean).join(" "), body };
}

function source(): BulkImportSource {
  const files = Array.from({ length: Math.ceil(NAMES / PER_FILE) }, (_, i) => `part${i}`);
  return {
    collection: COLLECTION,
    release: `bench-${NAMES}`,
    files,
    index: { innerWords: INNER_WORDS },
    async *items(file, afterRow): AsyncGenerator<BulkItem> {
      const n = Number(file.slice(4));
      const rows = Math.min(PER_FILE, NAMES - n * PER_FILE);
      for (let row = afterRow + 1; row <= rows; row++) yield { row, entry: company(n, row) };
    },
  };
}

// Queries as buyers type them: a name word, two words of one name, a word prefix, a trade name word plus town.
const { random: queryRandom } = seededRandom(20261125);
const queries = Array.from({ length: QUERIES }, () => {
  const file = Math.floor(queryRandom() * Math.ceil(NAMES / PER_FILE));
  const row = 1 + Math.floor(queryRandom() * Math.min(PER_FILE, NAMES - file * PER_FILE));
  const sample = company(file, row);
  const words = searchWords(sample.title).filter((w) => w.length >= 3);
  const kind = queryRandom();
  const one = words[Math.floor(queryRandom() * words.length)] ?? "comercio";
  if (kind < 0.3) return one;
  if (kind < 0.6) return words.slice(0, 2).join(" ") || one;
  if (kind < 0.8) return one.slice(0, Math.max(3, Math.min(5, one.length - 1)));
  return `${searchWords(sample.alt)[0] ?? one} ${sample.body.city.toLowerCase()}`;
});

/** Milliseconds per query, ascending; COMPANY_BENCH_SLOWEST=1 prints the slowest queries under `label`. */
const time = (run: (q: string) => Promise<unknown>, list: string[], label = "") =>
  timeQueries(run, list, label, Boolean(process.env.COMPANY_BENCH_SLOWEST));

async function measure(label: string, store: Store): Promise<void> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 200);
  const started = process.hrtime.bigint();
  // The last batch's progress report: what follows is the finish (swap-in, PostgreSQL's search tables, merge).
  let lastBatch = started;
  const status = await runBulkImport(store, source(), {
    onProgress: (s) => {
      lastBatch = process.hrtime.bigint();
      if (s.rows % 500_000 < 2000) process.stderr.write(`  ${label}: ${s.rows.toLocaleString("en")} rows\r`);
    },
  });
  clearInterval(sampler);
  const ended = process.hrtime.bigint();
  const importSec = Number(ended - started) / 1e9;
  const finishSec = Number(ended - lastBatch) / 1e9;
  const index = GovTitleIndex.of(store);
  await time((q) => index.search(COLLECTION, q, 20), queries.slice(0, 100)); // warm-up
  const indexed = await time((q) => index.search(COLLECTION, q, 20), queries, label);
  const db = store.db as unknown as Kysely<unknown>;
  const scan = await time(
    async (q) => {
      const where = sql.join(
        searchWords(q).map((w) => sql`lower(title) like ${`%${w}%`}`),
        sql` and `,
      );
      await sql`select body from gov_index_entries where collection = ${COLLECTION} and ${where} limit 20`.execute(
        db,
      );
    },
    queries.slice(0, SCANS),
  );
  const row = (title: string, t: number[]) =>
    `  ${title.padEnd(24)} p50 ${percentile(t, 50).toFixed(2)} ms   p99 ${percentile(t, 99).toFixed(2)} ms`;
  console.log(
    `${label}: ${status.rows.toLocaleString("en")} names imported in ${importSec.toFixed(0)} s ` +
      `(${Math.round(status.rows / importSec).toLocaleString("en")} rows/s; of it the finish ${finishSec.toFixed(0)} s), ` +
      `node peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB` +
      `${INNER_WORDS ? " (inner word tails indexed)" : ""}`,
  );
  console.log(row(`index (${indexed.length} q)`, indexed));
  console.log(row(`LIKE scan (${scan.length} q)`, scan));
  const p99 = percentile(indexed, 99);
  console.log(
    `  scan/index              p50 ${(percentile(scan, 50) / percentile(indexed, 50)).toFixed(0)}×`,
  );
  console.log(
    `  aim p99 ≤ ${AIM_P99_MS} ms: p50 ${percentile(indexed, 50).toFixed(2)} / p95 ${percentile(indexed, 95).toFixed(2)} / ` +
      `p99 ${p99.toFixed(2)} ms: ${p99 <= AIM_P99_MS ? "met" : "NOT met"}`,
  );
}

if (STORES.includes("sqlite")) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "company-bench-"));
  const file = KEEP_SQLITE ?? path.join(dir, "bench.sqlite");
  const sqlite = await openStore({ kind: "sqlite", file }, GOV_MIGRATIONS);
  try {
    await measure("SQLite (FTS5, file)", sqlite);
  } finally {
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (STORES.includes("postgres")) {
  await onScratchPostgres(
    PG_URL,
    GOV_MIGRATIONS,
    (store) => measure("PostgreSQL (GIN full text)", store),
    KEEP_PG_SCHEMA,
  );
}
