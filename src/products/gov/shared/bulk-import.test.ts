// Runs on SQLite and, in the PostgreSQL run of the suite, on PostgreSQL.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { openTestStore } from "../../../../test/test-store.ts";
import type { Store } from "../../../store/store.ts";
import {
  type BulkImportSource,
  type BulkItem,
  bulkImportStatus,
  runBulkImport,
  stagedCount,
} from "./bulk-import.ts";
import { GOV_MIGRATIONS } from "./migrations.ts";
import { GovTitleIndex } from "./title-index.ts";

let store: Store;
let index: GovTitleIndex;
beforeEach(async () => {
  store = await openTestStore(GOV_MIGRATIONS);
  index = GovTitleIndex.of(store);
});
afterEach(() => store.close());

/**
 * A register in two files: "owners" rows (key;name) are kept aside, "shops" rows (id;owner;trade name) become
 * entries titled with their owner's name. A row without three fields is malformed.
 */
const FILES: Record<string, string[]> = {
  owners: ["1;Padaria Alfa Ltda", "2;Beta Comercio SA", "3;Gama Servicos"],
  shops: [
    "s1;1;Alfa Paes",
    "s2;2;Beta Loja Centro",
    "broken row",
    "s3;3;Gama Express",
    "s4;9;Orfa Loja",
    "s5;1;Alfa Doces",
  ],
};

interface Reads {
  calls: Array<{ file: string; afterRow: number }>;
  /** Throws when this row of this file is reached (a crash). */
  crashAt?: { file: string; row: number };
}

function source(release: string, files: Record<string, string[]>, reads: Reads): BulkImportSource {
  return {
    collection: "co-test",
    release,
    files: Object.keys(files),
    async *items(file, afterRow): AsyncIterable<BulkItem> {
      reads.calls.push({ file, afterRow });
      const lines = files[file] ?? [];
      for (let row = afterRow + 1; row <= lines.length; row++) {
        if (reads.crashAt?.file === file && reads.crashAt.row === row) throw new Error("disk on fire");
        const fields = (lines[row - 1] as string).split(";");
        if (file === "owners") {
          yield { row, stage: { key: `owner:${fields[0]}`, value: fields[1] } };
        } else if (fields.length !== 3) {
          yield { row, error: `expected 3 fields, got ${fields.length}` };
        } else {
          const [id, owner, trade] = fields as [string, string, string];
          yield {
            row,
            lookup: [`owner:${owner}`],
            build: (found) => {
              const name = found.get(`owner:${owner}`);
              if (typeof name !== "string") return `owner ${owner} is not in owners`;
              return { id, title: name, alt: trade, body: { id, name, trade } };
            },
          };
        }
      }
    },
  };
}

const ids = async (q: string) =>
  ((await index.search<{ id: string }>("co-test", q, 50))?.items ?? []).map((i) => i.id).sort();

describe("resumable bulk import", () => {
  it("joins staged rows, imports every well-formed row and reports the malformed ones with file and line", async () => {
    const status = await runBulkImport(store, source("2026-10", FILES, { calls: [] }), { batchSize: 2 });
    assert.equal(status.state, "finished");
    assert.equal(status.rows, 4);
    assert.equal(status.errors, 2);
    assert.deepEqual(status.errorSample, [
      { file: "shops", line: 3, message: "expected 3 fields, got 1" },
      { file: "shops", line: 5, message: "owner 9 is not in owners" },
    ]);
    assert.deepEqual(await ids("alfa"), ["s1", "s5"]);
    assert.deepEqual(await ids("loja centro"), ["s2"]);
    assert.deepEqual(await ids("orfa"), []);
    assert.equal(await index.count("co-test"), 4);
    assert.equal(await stagedCount(store, "co-test"), 0, "staged values are removed once the run finished");
    const { live, running } = await bulkImportStatus(store, "co-test");
    assert.equal(live?.release, "2026-10");
    assert.equal(running, null);
    assert.ok(live?.finishedAt);
  });

  it("continues a crashed run from its checkpoint, keeping the old generation searchable until the swap", async () => {
    await runBulkImport(
      store,
      source(
        "2026-09",
        { owners: ["1;Velha Padaria"], shops: ["old;1;Velha"] },
        {
          calls: [],
        },
      ),
    );
    const reads: Reads = { calls: [], crashAt: { file: "shops", row: 4 } };
    await assert.rejects(
      runBulkImport(store, source("2026-10", FILES, reads), { batchSize: 2 }),
      /disk on fire/,
    );

    assert.deepEqual(await ids("velha"), ["old"], "searches still read the previous release");
    assert.deepEqual(await ids("alfa"), [], "nothing of the unfinished run is visible");
    const { running, live } = await bulkImportStatus(store, "co-test");
    assert.equal(live?.release, "2026-09");
    assert.equal(running?.release, "2026-10");
    assert.deepEqual(
      running?.checkpoint,
      { file: "shops", row: 2 },
      "rows 1-2 committed, 3-4 lost with the crash",
    );

    const resumed: Reads = { calls: [] };
    const status = await runBulkImport(store, source("2026-10", FILES, resumed), { batchSize: 2 });
    assert.deepEqual(resumed.calls, [{ file: "shops", afterRow: 2 }], "owners are not read again");
    assert.equal(status.rows, 4);
    assert.equal(status.errors, 2);
    assert.deepEqual(await ids("alfa"), ["s1", "s5"]);
    assert.deepEqual(await ids("velha"), []);
  });

  it("discards an unfinished run of another release and starts the new one from the beginning", async () => {
    await assert.rejects(
      runBulkImport(store, source("2026-09", FILES, { calls: [], crashAt: { file: "shops", row: 6 } }), {
        batchSize: 2,
      }),
    );
    const reads: Reads = { calls: [] };
    const next = { owners: ["7;Delta Transportes"], shops: ["d1;7;Delta Log"] };
    const status = await runBulkImport(store, source("2026-10", next, reads), { batchSize: 2 });
    assert.deepEqual(reads.calls, [
      { file: "owners", afterRow: 0 },
      { file: "shops", afterRow: 0 },
    ]);
    assert.equal(status.rows, 1);
    assert.deepEqual(await ids("delta"), ["d1"]);
    assert.deepEqual(await ids("alfa"), []);
    assert.equal((await bulkImportStatus(store, "co-test")).running, null);
  });

  it("starts a crashed run over when another build of the collection removed its rows meanwhile", async () => {
    await assert.rejects(
      runBulkImport(store, source("2026-10", FILES, { calls: [], crashAt: { file: "shops", row: 6 } }), {
        batchSize: 2,
      }),
    );
    await index.replaceCollection("co-test", [{ id: "x", title: "Rebuilt", body: { id: "x" } }]);
    const reads: Reads = { calls: [] };
    const status = await runBulkImport(store, source("2026-10", FILES, reads), { batchSize: 2 });
    assert.deepEqual(reads.calls[0], { file: "owners", afterRow: 0 });
    assert.equal(status.rows, 4);
    assert.deepEqual(await ids("alfa"), ["s1", "s5"]);
  });

  it("does not read a release again once it is imported", async () => {
    await runBulkImport(store, source("2026-10", FILES, { calls: [] }));
    const again: Reads = { calls: [] };
    const status = await runBulkImport(store, source("2026-10", FILES, again));
    assert.deepEqual(again.calls, []);
    assert.equal(status.rows, 4);
  });

  it("writes a batch whole or not at all: a batch that fails leaves the checkpoint before it", async () => {
    let failing = true;
    const base = source("2026-10", FILES, { calls: [] });
    const flaky: BulkImportSource = {
      ...base,
      async *items(file, afterRow, staged) {
        for await (const item of base.items(file, afterRow, staged)) {
          if (failing && file === "shops" && item.row === 4 && "lookup" in item) {
            yield {
              ...item,
              build: () => {
                throw new Error("build failed");
              },
            };
          } else yield item;
        }
      },
    };
    await assert.rejects(runBulkImport(store, flaky, { batchSize: 2 }), /build failed/);
    const { running } = await bulkImportStatus(store, "co-test");
    assert.equal(
      running?.rows,
      2,
      "s1 and s2 (rows 1-2 of shops) were committed; the batch of rows 3-4 is gone",
    );
    assert.equal(running?.errors, 0, "row 3's error went with its batch");
    assert.deepEqual(running?.checkpoint, { file: "shops", row: 2 });
    failing = false;
    const status = await runBulkImport(store, flaky, { batchSize: 2 });
    assert.equal(status.rows, 4);
  });

  it("lets a later file load a small table staged by an earlier one whole", async () => {
    const status = await runBulkImport(store, {
      collection: "co-test",
      release: "2026-10",
      files: ["towns", "shops"],
      async *items(file, _afterRow, staged): AsyncIterable<BulkItem> {
        if (file === "towns") {
          yield { row: 1, stage: { table: "towns", key: "7107", value: "SAO PAULO" } };
          yield { row: 2, stage: { table: "towns", key: "6001", value: "RIO DE JANEIRO" } };
          return;
        }
        const towns = await staged.table("towns");
        assert.deepEqual((await staged.get(["7107"])).size, 0, "table values are not looked up by key");
        yield {
          row: 1,
          entry: { id: "a", title: "Bar Central", alt: String(towns.get("6001")), body: { id: "a" } },
        };
      },
    });
    assert.equal(status.rows, 1);
    assert.deepEqual(await ids("central rio"), ["a"]);
  });

  it("can index names without inner word tails: words then match at their start only", async () => {
    await runBulkImport(store, {
      ...source("2026-10", FILES, { calls: [] }),
      index: { innerWords: false },
    });
    assert.deepEqual(await ids("comer"), ["s2"]);
    assert.deepEqual(await ids("mercio"), []);
    assert.deepEqual(await ids("padaria"), ["s1", "s5"]);
  });
});
