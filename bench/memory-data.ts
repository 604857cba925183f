// Production-size SYNTHETIC data for the memory benchmark, written into a store the way each family's warmer
// writes it, so the family's own loading code builds its in-memory index from it: NVD records (the sync's
// upsert), OSM places (the rows the mountain.osm warmer inserts), the OFAC lists document (the ofac.lists
// warmer's) and SEC's ticker list (edgar.tickers'). Generated from a fixed seed, never committed.
import { EDGAR_FAMILY, TICKERS_KEY } from "../src/products/edgar/edgar-store.ts";
import type { TickerList } from "../src/products/edgar/tickers.ts";
import { bumpOsmVersion } from "../src/products/mountain/data/data-version.ts";
import { mountainDb } from "../src/products/mountain/data/schema.ts";
import { PLACE_TYPES } from "../src/products/mountain/shared/params.ts";
import { NvdRepository } from "../src/products/nvd/repository.ts";
import { CVE_SYNC_STATE, INITIAL_SYNC_STATE } from "../src/products/nvd/sync-state.ts";
import { type ListMeta, versionOf, writeStoredLists } from "../src/products/ofac/list-store.ts";
import type { EntryType, ListName, SanctionEntry } from "../src/products/ofac/parse.ts";
import type { Store } from "../src/store/store.ts";
import { seededRandom } from "./common.ts";

const { random, pick } = seededRandom(20261125);
const int = (n: number) => Math.floor(random() * n);
const SYLLABLES = ["ka", "ro", "va", "li", "mo", "sha", "de", "no", "ri", "ta", "gar", "bel", "zan", "kov"];
const SYLLABLES_MORE = ["rin", "tor", "mir", "hab", "dul", "sel", "nar", "pet", "vin", "lo", "es", "an"];
const ALL_SYLLABLES = [...SYLLABLES, ...SYLLABLES_MORE];
/** A made-up word of `parts` syllables: enough distinct words that vocabularies grow as real ones do. */
const word = (parts = 2 + int(3)) => Array.from({ length: parts }, () => pick(ALL_SYLLABLES, 1)).join("");
const cap = (w: string) => `${w[0]?.toUpperCase()}${w.slice(1)}`;
const version = () => `${int(12)}.${int(30)}.${int(10)}`;

// --- NVD: records whose search text is shaped like NVD's (description, CWE, vendor product from the CPEs).
const VENDORS = Array.from({ length: 4000 }, () => word());
const PRODUCTS = Array.from({ length: 12000 }, () => word());
const FLAWS = [
  ["cross-site scripting (XSS)", "CWE-79"],
  ["SQL injection", "CWE-89"],
  ["heap-based buffer overflow", "CWE-122"],
  ["use-after-free", "CWE-416"],
  ["path traversal", "CWE-22"],
  ["missing authorization", "CWE-862"],
  ["server-side request forgery (SSRF)", "CWE-918"],
  ["cross-site request forgery (CSRF)", "CWE-352"],
  ["OS command injection", "CWE-78"],
  ["insecure deserialization", "CWE-502"],
  ["out-of-bounds write", "CWE-787"],
  ["NULL pointer dereference", "CWE-476"],
] as const;
const EFFECTS = [
  "execute arbitrary code",
  "read arbitrary files",
  "cause a denial of service",
  "gain elevated privileges",
  "inject arbitrary web script or HTML",
  "obtain sensitive information",
];

function cveText(id: string): { description: string; cwe: string; vendor: string; product: string } {
  const [flaw, cwe] = pick(FLAWS, 1.5);
  const vendor = pick(VENDORS, 2.5);
  const product = pick(PRODUCTS, 2.5);
  // A function, file or parameter name of its own in most records, as NVD descriptions name them.
  const detail =
    random() < 0.7 ? ` in the ${word(3)}_${word(2)}() function of ${word(2)}/${word(3)}.php` : "";
  const description =
    `A ${flaw} vulnerability in ${vendor} ${product} ${version()} through ${version()}${detail} allows ` +
    `${pick(["remote attackers", "an authenticated user", "a local attacker"], 1)} to ${pick(EFFECTS, 1)} ` +
    `via a crafted request${random() < 0.4 ? ` to the ${word(2)} parameter` : ""}. ${id} was reported by ${cap(word())}.`;
  return { description, cwe, vendor, product };
}

/** `count` records modified within the last `days` days, all inside NVD's searchable window. */
export async function seedNvd(store: Store, count: number, days: number): Promise<void> {
  const repository = NvdRepository.of(store);
  const now = Date.now();
  const fetchedAt = new Date(now).toISOString();
  const BATCH = 5000;
  for (let start = 0; start < count; start += BATCH) {
    const cves = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const id = `CVE-${2000 + Math.floor((i / count) * 26)}-${String(10000 + i)}`;
      const text = cveText(id);
      const lastModified = new Date(now - int(days * 86_400_000 - 60_000)).toISOString();
      cves.push({
        cve: {
          id,
          published: lastModified,
          lastModified,
          vulnStatus: "Analyzed",
          description: text.description,
          cvss: null,
          cwes: [text.cwe],
          affected: [{ vendor: text.vendor, product: text.product }],
          references: [],
          nvdKev: null,
        },
        // The raw record is not read by the index; a small stand-in keeps the store small.
        raw: { id },
      });
    }
    await repository.upsertCves(cves, "sync", fetchedAt, false);
  }
  await repository.putState(CVE_SYNC_STATE, {
    ...INITIAL_SYNC_STATE,
    coveredSince: new Date(now - days * 86_400_000).toISOString(),
    syncedThrough: fetchedAt,
    syncedAt: fetchedAt,
    lastPageAt: fetchedAt,
    generation: 1,
  });
}

// --- Mountain: OSM places over the Alps, in area targets, some of them also in a resort's ring target.
const REGION = { south: 44.5, north: 48, west: 5.5, east: 16.5 };
const COUNTRIES = [
  ["ch", "CHF"],
  ["at", "EUR"],
  ["it", "EUR"],
  ["fr", "EUR"],
  ["de", "EUR"],
] as const;
const NAME_WORDS = ["Gasthof", "Hütte", "Alpenrose", "Stube", "Café", "Pizzeria", "Bar", "Edelweiss", "Post"];
const CUISINES = ["regional", "pizza", "italian", "swiss", "austrian", "burger", "coffee_shop", "cake"];

export async function seedPlaces(store: Store, count: number): Promise<{ rows: number }> {
  const db = mountainDb(store);
  const areas = Array.from({ length: 2000 }, (_, i) => {
    const [country, currency] = pick(COUNTRIES, 1);
    return { slug: `${word(2)}-${i}`, country, currency };
  });
  const fetchedAt = new Date().toISOString();
  const BATCH = 1000;
  let rows = 0;
  for (let start = 0; start < count; start += BATCH) {
    const values = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const area = areas[Math.floor((i / count) * areas.length)] as (typeof areas)[number];
      const row = {
        target: `area:${area.slug}`,
        id: `osm-node-${1_000_000_000 + i}`,
        name: `${pick(NAME_WORDS, 1)} ${cap(word())}`,
        type: pick(PLACE_TYPES, 1.5),
        cuisine: random() < 0.5 ? JSON.stringify([pick(CUISINES, 1.5)]) : null,
        address:
          random() < 0.4
            ? JSON.stringify({
                street: `${cap(word())}strasse`,
                housenumber: String(1 + int(120)),
                postcode: String(1000 + int(9000)),
                city: cap(word()),
              })
            : null,
        lat: REGION.south + random() * (REGION.north - REGION.south),
        lon: REGION.west + random() * (REGION.east - REGION.west),
        hours: random() < 0.4 ? "Mo-Su 10:00-22:00" : null,
        phone: random() < 0.3 ? `+41 ${int(100)} ${int(1000)} ${int(10000)}` : null,
        website: random() < 0.2 ? `https://${word()}.example` : null,
        country: area.country,
        area: area.slug,
        currency: area.currency,
        fetched_at: fetchedAt,
        recorded_sample: 0,
      };
      values.push(row);
      // One place in ten also lies in a resort's ring: the catalogue keeps it once, under its area.
      if (random() < 0.1) values.push({ ...row, target: `resort:${area.slug}` });
    }
    await db.insertInto("mountain_osm_places").values(values).execute();
    rows += values.length;
  }
  await bumpOsmVersion(store);
  return { rows };
}

// --- OFAC: the SDN and consolidated lists' entries, with aliases, addresses, ids and remarks.
const GIVEN = [
  "Mohammad",
  "Ali",
  "Ahmad",
  "Hassan",
  "Vladimir",
  "Sergey",
  "Igor",
  "Jose",
  "Luis",
  "Kim",
  "Li",
];
const COMPANY_WORDS = [
  "TRADING",
  "SHIPPING",
  "INTERNATIONAL",
  "GROUP",
  "BANK",
  "ENERGY",
  "HOLDING",
  "MARINE",
];
const PROGRAMS = ["SDGT", "IRAN", "RUSSIA-EO14024", "UKRAINE-EO13662", "CYBER2", "DPRK3", "SDNTK", "GLOMAG"];

function sanctionEntry(uid: number): SanctionEntry {
  const roll = random();
  const type: EntryType = roll < 0.5 ? "individual" : roll < 0.92 ? "entity" : "vessel";
  const firstName = type === "individual" ? `${pick(GIVEN, 1.3)} ${cap(word())}` : null;
  const lastName =
    type === "individual"
      ? word(3).toUpperCase()
      : `${word().toUpperCase()} ${pick(COMPANY_WORDS, 1)} ${pick(["LLC", "LTD", "JSC", "FZE"], 1)}`;
  const aliases = Array.from({ length: random() < 0.4 ? 0 : 1 + int(3) }, () => ({
    kind: "aka" as const,
    category: random() < 0.15 ? ("weak" as const) : ("strong" as const),
    firstName,
    lastName: `${lastName.slice(0, -1)}${pick(["A", "E", "I", "O"], 1)}`,
  }));
  return {
    uid,
    list: (random() < 0.9 ? "SDN" : "CONSOLIDATED") as ListName,
    type,
    firstName,
    lastName,
    title: null,
    programs: [pick(PROGRAMS, 1.5)],
    aliases,
    addresses: Array.from({ length: 1 + int(2) }, () => ({
      street: random() < 0.5 ? `${int(200)} ${cap(word())} Street` : null,
      city: cap(word()),
      stateOrProvince: null,
      postalCode: random() < 0.3 ? String(10000 + int(90000)) : null,
      country: cap(word(3)),
    })),
    ids:
      random() < 0.5
        ? [
            {
              type: "Passport",
              number: String(int(1e9)),
              country: cap(word(3)),
              issueDate: null,
              expirationDate: null,
            },
          ]
        : [],
    datesOfBirth: type === "individual" ? [`${1 + int(28)} Jan ${1940 + int(60)}`] : [],
    placesOfBirth: type === "individual" ? [`${cap(word())}, ${cap(word(3))}`] : [],
    nationalities: type === "individual" ? [cap(word(3))] : [],
    citizenships: [],
    vessel: null,
    remarks: random() < 0.5 ? `(Linked To: ${word(3).toUpperCase()} ${pick(COMPANY_WORDS, 1)})` : null,
  };
}

export async function seedOfac(store: Store, count: number): Promise<void> {
  const entries = Array.from({ length: count }, (_, i) => sanctionEntry(10_000 + i));
  const at = new Date().toISOString();
  const meta = (list: ListName): ListMeta => ({
    list,
    publishDate: "11/24/2026",
    publishedOn: "2026-11-24",
    recordCount: entries.filter((e) => e.list === list).length,
    entries: entries.filter((e) => e.list === list).length,
    source: `synthetic:${list}`,
    etag: null,
    lastModified: null,
    fetchedAt: at,
    checkedAt: at,
  });
  const lists = { SDN: meta("SDN"), CONSOLIDATED: meta("CONSOLIDATED") };
  await writeStoredLists({ store }, { version: versionOf(lists), lists, entries }, false);
}

// --- EDGAR: SEC's company_tickers.json, one entry per ticker; a company with share classes has several.
export async function seedTickers(store: Store, count: number): Promise<void> {
  const entries: TickerList["entries"] = [];
  for (let i = 0; entries.length < count; i++) {
    const cik = String(1_000_000 + i * 7).padStart(10, "0");
    const name = `${cap(word())} ${pick(["Inc.", "Corp", "Holdings, Inc.", "Group Ltd", "Bancorp"], 1)}`;
    const base = word(2).toUpperCase().slice(0, 4);
    entries.push({ cik, ticker: `${base}${i % 100}`, name });
    if (random() < 0.15) entries.push({ cik, ticker: `${base}${i % 100}-B`, name });
  }
  const at = new Date().toISOString();
  await store.cache.put<TickerList>(EDGAR_FAMILY, TICKERS_KEY, {
    body: { source: "synthetic:company_tickers.json", entries: entries.slice(0, count) },
    fetchedAt: at,
  });
}
