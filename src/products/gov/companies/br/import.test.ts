// The CNPJ release import on the recorded listing and the fixture zips (UPSTREAMS=replay): malformed rows
// reported with file and line, a crash continued from its checkpoint, the monthly check queuing the import.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  type FamilyTestContext,
  openFamilyContext,
  runWarmerRecorded,
} from "../../../../../test/family-harness.ts";
import {
  type BulkImportSource,
  bulkImportStatus,
  runBulkImport,
  stagedCount,
} from "../../shared/bulk-import.ts";
import { assembleGovFamily } from "../../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../../shared/migrations.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { startBytesServer } from "../../shared/zip-fixture.test-helper.ts";
import { COMPANIES_RECORDINGS_DIR } from "../paths.ts";
import {
  BR_COLLECTION,
  type BrRelease,
  brImportSource,
  importRelease,
  latestRelease,
  releaseFiles,
} from "./import.ts";
import { BR_IMPORT_QUEUE, brCompanies, brReleaseWarmer } from "./index.ts";
import { BR_FIXTURES_DIR, BR_SHARE_TOKEN, brDownloadDir } from "./upstream.ts";

let ctx: FamilyTestContext;
beforeEach(async () => {
  ctx = await openFamilyContext(
    assembleGovFamily("gov-companies", [brCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS),
  );
});
afterEach(() => ctx.close());

describe("CNPJ release import", () => {
  it("picks the newest complete release and reads tables, Simples, Empresas, then Estabelecimentos", async () => {
    const release = await latestRelease(ctx);
    assert.equal(release.release, "2026-11");
    assert.deepEqual(
      release.files.map((f) => f.name),
      [
        "Cnaes.zip",
        "Motivos.zip",
        "Municipios.zip",
        "Naturezas.zip",
        "Paises.zip",
        "Simples.zip",
        "Empresas0.zip",
        "Empresas1.zip",
        "Estabelecimentos0.zip",
        "Estabelecimentos1.zip",
      ],
      "Socios and Qualificacoes are never read",
    );
    const uploading = release.files.filter((f) => f.name !== "Estabelecimentos1.zip");
    assert.equal(releaseFiles(uploading), undefined, "a release still uploading is not taken");
  });

  it("imports every well-formed establishment and reports malformed rows with their file and line", async () => {
    const source = brImportSource(ctx, await latestRelease(ctx));
    const status = await runBulkImport(ctx.store, source);
    assert.equal(status.rows, 5);
    assert.deepEqual(status.errorSample, [
      { file: "Empresas0.zip", line: 3, message: "expected 7 fields, found 6" },
      {
        file: "Estabelecimentos0.zip",
        line: 4,
        message: "establishment 55666777000181: its company 55666777 is not in the Empresas files",
      },
      { file: "Estabelecimentos1.zip", line: 3, message: "expected 30 fields, found 29" },
    ]);
    assert.equal(await stagedCount(ctx.store, BR_COLLECTION), 0);
  });

  it("continues a crashed import from its checkpoint; nothing is searchable before the whole release is in", async () => {
    const release = await latestRelease(ctx);
    const real = brImportSource(ctx, release);
    const reads: string[] = [];
    let crash = true;
    const crashing: BulkImportSource = {
      ...real,
      async *items(file, afterRow, staged) {
        reads.push(`${file}@${afterRow}`);
        for await (const item of real.items(file, afterRow, staged)) {
          if (crash && file === "Estabelecimentos1.zip" && item.row === 2) throw new Error("worker killed");
          yield item;
        }
      },
    };
    await assert.rejects(runBulkImport(ctx.store, crashing, { batchSize: 1 }), /worker killed/);
    const index = GovTitleIndex.of(ctx.store);
    assert.equal(await index.search(BR_COLLECTION, "banco", 10), undefined, "no generation is live yet");
    assert.deepEqual((await bulkImportStatus(ctx.store, BR_COLLECTION)).running?.checkpoint, {
      file: "Estabelecimentos1.zip",
      row: 1,
    });
    crash = false;
    reads.length = 0;
    const status = await runBulkImport(ctx.store, crashing, { batchSize: 1 });
    assert.deepEqual(reads, ["Estabelecimentos1.zip@1"]);
    assert.equal(status.rows, 5);
    assert.equal((await index.search(BR_COLLECTION, "banco brasil", 10))?.totalCount, 2);
  });

  it("the daily check queues the import of a newer release, and not again once it is imported", async () => {
    const first = await runWarmerRecorded(brReleaseWarmer, ctx);
    assert.deepEqual([first.latest, first.imported, first.queued], ["2026-11", null, true]);
    await runBulkImport(ctx.store, brImportSource(ctx, await latestRelease(ctx)));
    const second = await runWarmerRecorded(brReleaseWarmer, ctx);
    assert.deepEqual([second.imported, second.queued], ["2026-11", false]);
  });

  it("the import job imports the newest release, and does nothing once it is in", async () => {
    const job = ctx.family.jobs?.[BR_IMPORT_QUEUE];
    assert.ok(job);
    await job({ slice: 0 }, ctx);
    const { live } = await bulkImportStatus(ctx.store, BR_COLLECTION);
    assert.deepEqual([live?.release, live?.rows, live?.errors], ["2026-11", 5, 3]);
    await job({ slice: 1 }, ctx);
    assert.equal((await bulkImportStatus(ctx.store, BR_COLLECTION)).live?.finishedAt, live?.finishedAt);
  });
});

it("live, before the first release is imported: 404 not_cached (not charged) and the import queued", async () => {
  const live = await openFamilyContext(
    assembleGovFamily("gov-companies", [brCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS),
    { UPSTREAMS: "live" },
  );
  try {
    const route = live.family.products.find((p) => p.sku === "gov.br.companies");
    assert.ok(route);
    const outcome = await route.handle({ query: { q: "banco" }, body: undefined }, live);
    const body = outcome.body as { error?: string; charged?: boolean };
    assert.deepEqual([outcome.status, body.error, body.charged], [404, "not_cached", false]);
    assert.equal((await live.store.jobs.get(BR_IMPORT_QUEUE, "first"))?.state, "queued");
  } finally {
    await live.close();
  }
});

it("live: keeps one release file on disk at a time, reads it again when the import resumes, removes it at the end", async () => {
  const server = await startBytesServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "br-bulk-"));
  const names = ["Empresas0.zip", "Empresas1.zip"];
  const release: BrRelease = { release: "2026-11", files: [] };
  for (const name of names) {
    const bytes = fs.readFileSync(path.join(BR_FIXTURES_DIR, "2026-11", name));
    server.serve(`/public.php/webdav/2026-11/${name}`, bytes, `"${name}-v1"`);
    release.files.push({ name, folder: false, size: bytes.length, modified: null });
  }
  const live = await openFamilyContext(
    assembleGovFamily("gov-companies", [brCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS),
    { UPSTREAMS: "live", DATA_DIR: dataDir, GOV_BR_RECEITA_CNPJ_BASE_URL: server.baseUrl },
  );
  try {
    const real = brImportSource(live, release);
    const crashing: BulkImportSource = {
      ...real,
      async *items(file, afterRow, staged) {
        for await (const item of real.items(file, afterRow, staged)) {
          if (file === "Empresas1.zip" && item.row === 2) throw new Error("worker killed");
          yield item;
        }
      },
    };
    await assert.rejects(runBulkImport(live.store, crashing, { batchSize: 1 }), /worker killed/);
    assert.deepEqual(
      server.requests.map((r) => [r.path, r.authorization]),
      names.map((name) => [
        `/public.php/webdav/2026-11/${name}`,
        `Basic ${Buffer.from(`${BR_SHARE_TOKEN}:`).toString("base64")}`,
      ]),
    );
    assert.deepEqual(
      fs.readdirSync(brDownloadDir(live)).filter((f) => f.endsWith(".zip")),
      ["Empresas1.zip"],
      "the file read before is removed",
    );

    const status = await importRelease(live, release);
    assert.deepEqual(
      server.requests.slice(2).map((r) => [r.path, r.ifNoneMatch]),
      [["/public.php/webdav/2026-11/Empresas1.zip", '"Empresas1.zip-v1"']],
      "only the file being read is asked for again, and the copy on disk is current",
    );
    assert.deepEqual(
      [status.state, status.staged, status.errorSample],
      ["finished", 5, [{ file: "Empresas0.zip", line: 3, message: "expected 7 fields, found 6" }]],
    );
    assert.equal(fs.existsSync(brDownloadDir(live)), false, "nothing is left on disk");
  } finally {
    await live.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

it("live: a downloaded file that is not a zip fails the import and is not kept", async () => {
  const server = await startBytesServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "br-bulk-"));
  const page = Buffer.from("<html>maintenance</html>");
  server.serve("/public.php/webdav/2026-11/Empresas0.zip", page, '"maintenance"');
  const release: BrRelease = {
    release: "2026-11",
    files: [{ name: "Empresas0.zip", folder: false, size: page.length, modified: null }],
  };
  const live = await openFamilyContext(
    assembleGovFamily("gov-companies", [brCompanies], COMPANIES_RECORDINGS_DIR, GOV_MIGRATIONS),
    { UPSTREAMS: "live", DATA_DIR: dataDir, GOV_BR_RECEITA_CNPJ_BASE_URL: server.baseUrl },
  );
  try {
    await assert.rejects(importRelease(live, release), /no end of central directory/);
    assert.equal(fs.existsSync(brDownloadDir(live)), false, "the next attempt downloads it again");
  } finally {
    await live.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
