// The Canadian index built from the open data archive: the recorded samples (replay), a malformed record
// reported with file and line, an interrupted import that leaves the old index answering and resumes, and the
// live path (download, zip, import) against a loopback server.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { openFamilyContext } from "../../../../../test/family-harness.ts";
import { runBulkImport, type StagedValues } from "../../shared/bulk-import.ts";
import { readBulkIndexStatus } from "../../shared/bulk-index-status.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { startBytesServer, zipOf } from "../../shared/zip-fixture.test-helper.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import { ensureCaSampleIndex, importCaArchive, lookupByBn9, lookupCorporation } from "./import.ts";
import { caCompanies } from "./index.ts";
import { CA_ARCHIVE_PATH, CA_COLLECTION, CA_SAMPLE_DIR, caBulkSource, openCaArchive } from "./upstream.ts";

const family = assembleGovFamily("gov-companies", [caCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS);
const MALFORMED_DIR = path.join(CA_SAMPLE_DIR, "..", "malformed");

describe("Canadian corporations index", () => {
  it("replay: the recorded archive is imported once on first use; lookups by number and by BN root", async () => {
    const ctx = await openFamilyContext(family);
    try {
      assert.equal(await lookupCorporation(ctx, "1007"), undefined);
      await Promise.all([ensureCaSampleIndex(ctx), ensureCaSampleIndex(ctx)]);
      assert.equal((await lookupCorporation(ctx, "1007"))?.name, "Abbotsford Chamber of Commerce");
      assert.equal((await lookupByBn9(ctx, "765432108"))?.corporationId, "12345678");
      assert.equal(await lookupByBn9(ctx, "765432100"), undefined);
      assert.equal(await lookupCorporation(ctx, "999"), undefined);
      const status = await readBulkIndexStatus(ctx.store, CA_COLLECTION);
      assert.deepEqual([status.loaded, status.rows, status.errors, status.importing], [true, 4, 0, null]);
      assert.match(status.release ?? "", /^sample-/);
    } finally {
      await ctx.close();
    }
  });

  it("a malformed record is reported with its file and line; the other records are imported", async () => {
    const ctx = await openFamilyContext(family);
    try {
      const result = await importCaArchive(ctx, { sampleDir: MALFORMED_DIR });
      assert.deepEqual([result.rows, result.errors], [2, 2]);
      assert.deepEqual(
        result.errorSample.map((e) => [e.file, e.line, e.message.slice(0, 40)]),
        [
          ["OPEN_DATA_1.xml", 9, "malformed XML: Expected closing tag 'nam"],
          ["OPEN_DATA_1.xml", 11, "a corporation without a numeric corporat"],
        ],
      );
      assert.equal((await lookupCorporation(ctx, "2000003"))?.status, "Dissolved");
      assert.equal(await lookupCorporation(ctx, "2000001"), undefined);
    } finally {
      await ctx.close();
    }
  });

  it("an interrupted import leaves the previous index answering, then resumes where it stopped", async () => {
    const ctx = await openFamilyContext(family);
    try {
      await importCaArchive(ctx, { sampleDir: MALFORMED_DIR });
      const opened = await openCaArchive(ctx);
      const source = await caBulkSource(opened);
      const stop = new AbortController();
      const first = runBulkImport(ctx.store, source, {
        batchSize: 1,
        signal: stop.signal,
        onProgress: () => stop.abort(new Error("crash")),
      });
      await assert.rejects(first, /crash/);
      // Nothing of the new release is visible: the old index still answers, the new corporation does not.
      assert.equal((await lookupCorporation(ctx, "2000003"))?.name, "LAST GOOD CORP.");
      assert.equal(await lookupCorporation(ctx, "12345678"), undefined);
      const during = await readBulkIndexStatus(ctx.store, CA_COLLECTION);
      assert.deepEqual(during.importing?.checkpoint, { file: "OPEN_DATA_1.xml", row: 1 });

      let rowsRead = 0;
      const counting = {
        ...source,
        items: async function* (file: string, afterRow: number, staged: StagedValues) {
          for await (const item of source.items(file, afterRow, staged)) {
            rowsRead++;
            yield item;
          }
        },
      };
      const done = await runBulkImport(ctx.store, counting);
      assert.equal(rowsRead, 3, "rows 2 of file 1 and both rows of file 2: row 1 was not read again");
      assert.deepEqual([done.state, done.rows], ["finished", 4]);
      assert.equal(await lookupCorporation(ctx, "2000003"), undefined, "the old release is gone");
      assert.equal((await lookupCorporation(ctx, "12345678"))?.statusCode, "3");
    } finally {
      await ctx.close();
    }
  });

  it("live: downloads the archive, reads the zip members in order, and skips a release already imported", async () => {
    const server = await startBytesServer();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ca-bulk-"));
    const files = ["codes.xml", "OPEN_DATA_2.xml", "OPEN_DATA_1.xml"].map((name) => ({
      name,
      data: fs.readFileSync(path.join(CA_SAMPLE_DIR, name)),
    }));
    server.serve(CA_ARCHIVE_PATH, zipOf(files), '"w47"');
    const ctx = await openFamilyContext(family, {
      UPSTREAMS: "live",
      DATA_DIR: dataDir,
      GOV_CA_CORPORATIONS_BASE_URL: server.baseUrl,
    });
    try {
      await ensureCaSampleIndex(ctx);
      assert.equal(await lookupCorporation(ctx, "1007"), undefined, "live mode never imports the samples");
      const first = await importCaArchive(ctx);
      assert.deepEqual(
        [first.release, first.files, first.rows],
        ["2026-11-21", ["OPEN_DATA_1.xml", "OPEN_DATA_2.xml"], 4],
      );
      const company = await lookupCorporation(ctx, "1007");
      assert.equal(company?.apiUrl, `${server.baseUrl}${CA_ARCHIVE_PATH}`);
      const again = await importCaArchive(ctx);
      assert.equal(again.finishedAt, first.finishedAt, "the same release is not imported twice");
      assert.equal(server.requests.at(-1)?.ifNoneMatch, '"w47"');
    } finally {
      await ctx.close();
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
