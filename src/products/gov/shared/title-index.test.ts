// Runs on SQLite (FTS5) and, in the PostgreSQL run of the suite, on PostgreSQL full text.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Kysely, sql } from "kysely";
import { openTestStore, TEST_DATABASE_URL } from "../../../../test/test-store.ts";
import type { Store } from "../../../store/store.ts";
import { openStore } from "../../../store/store.ts";
import { GOV_MIGRATIONS } from "./migrations.ts";
import { GovTitleIndex, type IndexEntry } from "./title-index.ts";

let store: Store;
let index: GovTitleIndex;

const act = (id: string, title: string, alt?: string): IndexEntry => ({
  id,
  title,
  ...(alt ? { alt } : {}),
  body: { id, title },
});

before(async () => {
  store = await openTestStore(GOV_MIGRATIONS);
  index = GovTitleIndex.of(store);
  await index.replaceCollection("leg-de", [
    act("bgb", "Bürgerliches Gesetzbuch", "BGB"),
    act("stvg", "Straßenverkehrsgesetz", "StVG"),
    act("bdsg", "Bundesdatenschutzgesetz", "BDSG"),
    act("gg", "Grundgesetz für die Bundesrepublik Deutschland", "GG"),
    act("urhg", "Gesetz über Urheberrecht und verwandte Schutzrechte", "UrhG"),
  ]);
  await index.replaceCollection("leg-ca", [act("C-46", "Criminal Code", "Code criminel")]);
});
after(() => store.close());

const ids = (items: Array<{ id: string }>) => items.map((i) => i.id).sort();

describe("our own title index", () => {
  it("folds case and diacritics: burgerliches finds Bürgerliches, strasse finds Straße", async () => {
    const bgb = await index.search<{ id: string }>("leg-de", "burgerliches GESETZBUCH", 10);
    assert.deepEqual(ids(bgb?.items ?? []), ["bgb"]);
    const stvg = await index.search<{ id: string }>("leg-de", "straßenverkehr", 10);
    assert.deepEqual(ids(stvg?.items ?? []), ["stvg"]);
  });

  it("needs every word, finds words of three letters or more inside compounds, and searches abbreviations", async () => {
    const both = await index.search<{ id: string }>("leg-de", "gesetz urheber", 10);
    assert.deepEqual(ids(both?.items ?? []), ["urhg"]);
    const abbreviation = await index.search<{ id: string }>("leg-de", "bdsg", 10);
    assert.deepEqual(ids(abbreviation?.items ?? []), ["bdsg"]);
    const none = await index.search<{ id: string }>("leg-de", "gesetzbuch urheber", 10);
    assert.deepEqual(none, { totalCount: 0, items: [] });
  });

  it("counts all matches and returns at most the limit", async () => {
    const result = await index.search<{ id: string }>("leg-de", "gg", 10);
    assert.equal(result?.totalCount, 1, "a two-letter word is matched whole");
    const inside = await index.search<{ id: string }>("leg-de", "gesetz", 2);
    assert.equal(inside?.totalCount, 5, "every title here contains 'gesetz'");
    assert.equal(inside?.items.length, 2);
    const compound = await index.search<{ id: string }>("leg-de", "datenschutz", 10);
    assert.deepEqual(ids(compound?.items ?? []), ["bdsg"]);
  });

  it("keeps collections apart", async () => {
    const result = await index.search<{ id: string }>("leg-ca", "gesetz", 10);
    assert.equal(result?.totalCount, 0);
    assert.deepEqual(ids((await index.search<{ id: string }>("leg-ca", "criminel", 10))?.items ?? []), [
      "C-46",
    ]);
  });

  it("answers undefined for a collection never built, so the route can say it is not ready", async () => {
    assert.equal(await index.search("leg-ch", "anything", 10), undefined);
    assert.equal(await index.count("leg-ch"), 0);
  });

  it("swaps a rebuilt collection in whole: old entries gone, new ones found, counts right", async () => {
    await index.replaceCollection("leg-x", [act("1", "Alpha Act"), act("2", "Beta Act")]);
    const written = await index.replaceCollection("leg-x", [act("2", "Beta Act"), act("3", "Gamma Act")]);
    assert.equal(written, 2);
    assert.equal(await index.count("leg-x"), 2);
    assert.deepEqual(ids((await index.search<{ id: string }>("leg-x", "act", 10))?.items ?? []), ["2", "3"]);
    assert.equal(await index.get("leg-x", "1"), undefined);
    assert.deepEqual(await index.get("leg-x", "3"), { id: "3", title: "Gamma Act" });
  });

  it("takes change-feed updates into the live generation", async () => {
    await index.upsert("leg-x", [act("3", "Gamma Regulation"), act("4", "Delta Act")]);
    await index.remove("leg-x", ["2"]);
    assert.equal(await index.count("leg-x"), 2);
    assert.deepEqual(ids((await index.search<{ id: string }>("leg-x", "act", 10))?.items ?? []), ["4"]);
    assert.deepEqual(ids((await index.search<{ id: string }>("leg-x", "regulation", 10))?.items ?? []), [
      "3",
    ]);
  });

  it("upserts arriving together, on a collection never built, all land: one generation, every entry found", async () => {
    const entries = Array.from({ length: 12 }, (_, i) => act(`c${i}`, `Company ${i} Holding`));
    await Promise.all(entries.map((entry) => index.upsert("co-race", [entry])));
    await Promise.all(entries.slice(0, 6).map((entry) => index.upsert("co-race", [entry])));
    assert.equal(await index.count("co-race"), 12);
    const found = await index.search<{ id: string }>("co-race", "holding", 20);
    assert.deepEqual(ids(found?.items ?? []), ids(entries));
  });

  it("streams entries from an async source and drops repeated ids", async () => {
    async function* entries() {
      for (let i = 0; i < 1000; i++) yield act(`n${i % 900}`, `Numbered act ${i % 900}`);
    }
    assert.equal(await index.replaceCollection("leg-y", entries()), 900);
    assert.equal((await index.search("leg-y", "numbered", 5))?.totalCount, 900);
  });
});

it("does not take a two-letter word as part of a longer one", async () => {
  const result = await index.search<{ id: string }>("leg-de", "gr", 10);
  assert.equal(result?.totalCount, 0);
});

it("drops function words when the query has others, and still searches a query of function words alone", async () => {
  const result = await index.search<{ id: string }>("leg-de", "Gesetz über das Urheberrecht", 10);
  assert.deepEqual(ids(result?.items ?? []), ["urhg"]);
  const only = await index.search<{ id: string }>("leg-de", "für die", 10);
  assert.deepEqual(ids(only?.items ?? []), ["gg"]);
});

it("keeps generations built at the same time apart, and change-feed rows of a generation inside its search", async () => {
  const a = await index.newGeneration("co-a");
  const b = await index.newGeneration("co-b");
  const stamp = new Date().toISOString();
  for (let i = 0; i < 3; i++) {
    await index.insertBatch("co-a", a, [act(`a${i}`, `Alpha Trading ${i}`)], stamp);
    await index.insertBatch("co-b", b, [act(`b${i}`, `Beta Trading ${i}`)], stamp);
  }
  await index.swapIn("co-a", a, 3);
  await index.swapIn("co-b", b, 3);
  assert.deepEqual(ids((await index.search<{ id: string }>("co-a", "trading", 10))?.items ?? []), [
    "a0",
    "a1",
    "a2",
  ]);
  assert.equal((await index.search("co-b", "trading", 10))?.totalCount, 3);
  await index.upsert("co-a", [act("a9", "Alpha Trading Nine")]);
  assert.equal((await index.search("co-a", "trading", 10))?.totalCount, 4);
  assert.equal((await index.search("co-b", "nine", 10))?.totalCount, 0);
});

it("answers the shortest names first, whatever order the register lists them in, change-feed rows too", async () => {
  const names = [
    "Nordic Timber Trading Holdings",
    "Nordic Timber Trading",
    "Nordic Timber",
    "Nordic Timber Trading Group",
  ];
  await index.replaceCollection(
    "co-rank",
    names.map((name, i) => act(`r${i}`, name)),
  );
  const first = await index.search<{ title: string }>("co-rank", "nordic timber", 2);
  assert.equal(first?.totalCount, 4);
  assert.deepEqual(
    first?.items.map((i) => i.title),
    ["Nordic Timber", "Nordic Timber Trading"],
  );
  await index.upsert("co-rank", [act("r9", "Nordic Tim")]);
  const after = await index.search<{ title: string }>("co-rank", "nordic", 3);
  assert.deepEqual(
    after?.items.map((i) => i.title),
    ["Nordic Tim", "Nordic Timber", "Nordic Timber Trading"],
  );
  // A generation written before blocks were ranked is still answered shortest first (by sorting candidates).
  await store.db
    .updateTable("gov_index_generations" as never)
    .set({ ranked: 0 } as never)
    .where("collection" as never, "=", "co-rank" as never)
    .execute();
  const legacy = await index.search<{ title: string }>("co-rank", "trading", 2);
  assert.deepEqual(
    legacy?.items.map((i) => i.title),
    ["Nordic Timber Trading", "Nordic Timber Trading Group"],
  );
});

it("ranks every match, not only those counted: the best names written last still come first", async () => {
  // Counting stops at 4 here (10,000 in service), and on PostgreSQL a generation of more than 3 rows is split
  // into chunk tables of 3: 12 matches written longest first, so the best are past the counted ones in the
  // order they were written.
  const names = Array.from({ length: 12 }, (_, i) => `Harbour Freight${" Services".repeat(12 - i)}`);
  const entries = names.map((name, i) => act(`h${i}`, name));
  for (const [label, limits] of [
    ["chunked", { countCap: 4, chunkRows: 3 }],
    ["one table", { countCap: 4 }],
  ] as const) {
    const capped = GovTitleIndex.of(store, limits);
    const collection = `co-cap-${label.replace(" ", "-")}`;
    await capped.replaceCollection(collection, entries);
    const titles = async (q: string) =>
      (await capped.search<{ title: string }>(collection, q, 3))?.items.map((i) => i.title);
    assert.deepEqual(await titles("harbour freight"), names.slice(-3).reverse(), label);
    assert.equal((await capped.search(collection, "harbour", 3))?.totalCount, 4, `${label}: count capped`);
    // A change-feed row (the best of all) and a removal.
    await capped.upsert(collection, [act("late", "Harbour F")]);
    await capped.remove(collection, ["h11"]);
    assert.deepEqual(await titles("harbour"), ["Harbour F", names[10], names[9]], label);
    // Rebuilt: the earlier generation's rows are gone, the new ranking holds.
    await capped.replaceCollection(collection, entries.slice(0, 6));
    assert.deepEqual(await titles("freight"), names.slice(3, 6).reverse(), `${label}, rebuilt`);
  }
});

it("two nodes upserting one collection never built: both entries land (PostgreSQL, an advisory lock)", async (t) => {
  if (!TEST_DATABASE_URL) return t.skip("PostgreSQL only: one SQLite file has one writer");
  const first = await openTestStore(GOV_MIGRATIONS);
  const { rows } = await sql<{ s: string }>`select current_schema() as s`.execute(
    first.db as Kysely<unknown>,
  );
  const second = await openStore(
    { kind: "postgres", url: TEST_DATABASE_URL, schema: String(rows[0]?.s), poolSize: 2 },
    GOV_MIGRATIONS,
  );
  try {
    const entries = Array.from({ length: 10 }, (_, i) => act(`n${i}`, `Node Company ${i}`));
    await Promise.all(
      entries.map((entry, i) => GovTitleIndex.of(i % 2 ? first : second).upsert("co-nodes", [entry])),
    );
    assert.equal(await GovTitleIndex.of(first).count("co-nodes"), 10);
  } finally {
    await second.close();
    await first.close();
  }
});
