// United Kingdom: our own name index of the Companies House monthly snapshot, so that name searches cost no
// call of the API's 600-per-5-minutes budget (the API still serves one company's detail by number).
//
// Sources: the free "Company data product" page https://download.companieshouse.gov.uk/en_output.html linking
// BasicCompanyDataAsOneFile-YYYY-MM-01.zip (one CSV of every live company, ~5.7 million rows, ~470 MB zipped;
// also split in parts). The CSV's 55 columns, from public
// projects that load the real file: CompanyName, CompanyNumber, RegAddress.CareOf, RegAddress.POBox,
// RegAddress.AddressLine1, RegAddress.AddressLine2, RegAddress.PostTown, RegAddress.County, RegAddress.Country,
// RegAddress.PostCode, CompanyCategory, CompanyStatus, CountryOfOrigin, DissolutionDate, IncorporationDate,
// Accounts.* (5), Returns.* (2), Mortgages.* (4), SICCode.SicText_1..4 ("99999 - Dormant Company"),
// LimitedPartnerships.* (2), URI (http://data.companieshouse.gov.uk/doc/company/{number}),
// PreviousName_1..10.CONDATE / .CompanyName, ConfStmtNextDueDate, ConfStmtLastMadeUpDate. Some header names
// carry a leading space (" CompanyNumber", " RegAddress.AddressLine2"): headers are trimmed. Dates are
// DD/MM/YYYY. CompanyCategory and CompanyStatus are texts ("Private Limited Company", "Active - Proposal to
// Strike off"), not the API's codes: snapshot items carry them as written, and `snapshot` names the release.
// RegAddress.CareOf (often a person's name) is not kept.
import path from "node:path";
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import type { HandlerContext } from "../../../../catalog/product.ts";
import type { UpstreamSpec } from "../../../../upstream/client.ts";
import { type BulkArchive, folderArchive, zipArchive } from "../../shared/bulk-archive.ts";
import { downloadBulkFile } from "../../shared/bulk-download.ts";
import { type BulkImportSource, type BulkItem, bulkImportStatus } from "../../shared/bulk-import.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import type { CompanySearch } from "../answers.ts";
import { parseUkCompanyNumber } from "../identifiers.ts";
import type { GbItem } from "./normalise.ts";

export const SNAPSHOT_COLLECTION = "co-gb-snapshot";
const SNAPSHOT_PAGE = "/en_output.html";
export const SNAPSHOT_SAMPLE_DIR = path.join(import.meta.dirname, "fixtures", "BasicCompanyData");
/** Items a snapshot search answers (the API's page size). */
const SNAPSHOT_PAGE_SIZE = 20;

const GB_DOWNLOAD_UPSTREAM: UpstreamSpec = {
  name: "gov-gb-companies-house-download",
  defaultBaseUrl: "https://download.companieshouse.gov.uk",
  timeoutMs: 30_000,
  retries: 2,
};

type SnapshotItem = GbItem & { snapshot: string };

type Ctx = Pick<HandlerContext, "config" | "upstreams" | "store">;

const FILE = /BasicCompanyDataAsOneFile-(\d{4}-\d{2}-\d{2})\.zip/g;

/** The newest one-file snapshot the download page links, e.g. { date: "2026-11-01", fileName: "…zip" }. */
export function latestSnapshot(page: string): { date: string; fileName: string } | undefined {
  const dates = [...page.matchAll(FILE)].map((m) => m[1] as string).sort();
  const date = dates.at(-1);
  return date ? { date, fileName: `BasicCompanyDataAsOneFile-${date}.zip` } : undefined;
}

interface OpenedSnapshot {
  archive: BulkArchive;
  /** The snapshot's date (YYYY-MM-DD). */
  date: string;
  url: string;
}

/** Which snapshot the download page offers now (live: asked; replay: the recorded page). */
export async function currentSnapshot(ctx: Ctx): Promise<{ date: string; fileName: string; url: string }> {
  const client = ctx.upstreams.client(GB_DOWNLOAD_UPSTREAM);
  const response = await client.get({ path: SNAPSHOT_PAGE });
  if (response.status !== 200) throw new Error(`${response.url}: HTTP ${response.status}`);
  const latest = latestSnapshot(response.body);
  if (!latest) throw new Error(`${response.url} links no BasicCompanyDataAsOneFile-YYYY-MM-DD.zip`);
  return { ...latest, url: `${client.baseUrl}/${latest.fileName}` };
}

export async function openSnapshot(
  ctx: Ctx,
  offered: { date: string; fileName: string; url: string },
  sampleDir = SNAPSHOT_SAMPLE_DIR,
): Promise<OpenedSnapshot> {
  if (ctx.upstreams.mode === "replay") {
    return { archive: folderArchive(sampleDir), date: offered.date, url: offered.url };
  }
  const download = await downloadBulkFile({
    url: offered.url,
    dir: path.join(ctx.config.dataDir, "bulk", SNAPSHOT_COLLECTION),
    fileName: offered.fileName,
    userAgent: ctx.upstreams.userAgent,
    idleTimeoutMs: 120_000,
  });
  return { archive: await zipArchive(download.file), date: offered.date, url: offered.url };
}

/** DD/MM/YYYY → YYYY-MM-DD; anything else → null. */
export function snapshotDate(value: string | undefined): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec((value ?? "").trim());
  return match ? `${match[3]}-${match[2]}-${match[1]}` : null;
}

const field = (row: Record<string, string>, name: string): string | null => {
  const value = row[name]?.trim();
  return value ? value : null;
};

/** One CSV row → a search item, or why the row is malformed. */
function snapshotItem(row: Record<string, string>, snapshot: string): SnapshotItem | string {
  const rawNumber = field(row, "CompanyNumber");
  const parsed = rawNumber ? parseUkCompanyNumber(rawNumber) : undefined;
  if (!parsed || "error" in parsed)
    return `CompanyNumber ${JSON.stringify(rawNumber)} is not a company number`;
  const name = field(row, "CompanyName");
  if (!name) return `company ${parsed.id} has no CompanyName`;
  const status = field(row, "CompanyStatus");
  const poBox = field(row, "RegAddress.POBox");
  const address = {
    line1:
      [poBox ? `PO Box ${poBox}` : null, field(row, "RegAddress.AddressLine1")].filter(Boolean).join(", ") ||
      null,
    line2: field(row, "RegAddress.AddressLine2"),
    locality: field(row, "RegAddress.PostTown"),
    region: field(row, "RegAddress.County"),
    postalCode: field(row, "RegAddress.PostCode"),
    country: field(row, "RegAddress.Country"),
  };
  const created = snapshotDate(row.IncorporationDate);
  return {
    id: parsed.id,
    name,
    legalForm: field(row, "CompanyCategory"),
    status,
    active: status === null ? null : /^active\b/i.test(status),
    address: Object.values(address).some((v) => v !== null) ? address : null,
    created,
    sourceUrl: `https://find-and-update.company-information.service.gov.uk/company/${parsed.id}`,
    companyNumber: parsed.id,
    type: field(row, "CompanyCategory"),
    dateOfCreation: created,
    dateOfCessation: snapshotDate(row.DissolutionDate),
    snapshot,
  };
}

function previousNames(row: Record<string, string>): string[] {
  const names: string[] = [];
  for (let i = 1; i <= 10; i++) {
    const name = field(row, `PreviousName_${i}.CompanyName`);
    if (name) names.push(name);
  }
  return names;
}

const REQUIRED = ["CompanyName", "CompanyNumber"];

/** Every row of one CSV member after `afterRow`, as index entries or errors (row = data row, from 1). */
async function* csvItems(
  archive: BulkArchive,
  file: string,
  afterRow: number,
  snapshot: string,
): AsyncGenerator<BulkItem> {
  const skipped: Array<{ line: number; message: string }> = [];
  let header: string[] = [];
  const parser = parse({
    bom: true,
    info: true,
    relax_column_count: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      if (error)
        skipped.push({ line: Number(error.lines ?? 0), message: `unreadable CSV: ${error.message}` });
      return undefined;
    },
  });
  const input = Readable.from(await archive.open(file));
  input.on("error", (error) => parser.destroy(error));
  input.pipe(parser);
  let row = 0;
  const drainSkipped = function* (): Generator<BulkItem> {
    for (const skip of skipped.splice(0)) {
      row++;
      if (row > afterRow) yield { row, line: skip.line, error: skip.message };
    }
  };
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>) {
    yield* drainSkipped();
    if (header.length === 0) {
      header = record.map((h) => h.trim());
      const missing = REQUIRED.filter((c) => !header.includes(c));
      if (missing.length > 0) throw new Error(`${file}: the header lacks ${missing.join(", ")}`);
      continue;
    }
    row++;
    if (row <= afterRow) continue;
    if (record.length !== header.length) {
      yield {
        row,
        line: info.lines,
        error: `${record.length} columns where the header has ${header.length}`,
      };
      continue;
    }
    const values: Record<string, string> = {};
    header.forEach((name, i) => {
      values[name] = record[i] ?? "";
    });
    const item = snapshotItem(values, snapshot);
    if (typeof item === "string") {
      yield { row, line: info.lines, error: item };
      continue;
    }
    yield {
      row,
      line: info.lines,
      entry: { id: item.id, title: item.name, alt: previousNames(values).join(" "), body: item },
    };
  }
  yield* drainSkipped();
}

export function snapshotBulkSource(opened: OpenedSnapshot): BulkImportSource {
  const files = opened.archive.names.filter((n) => n.toLowerCase().endsWith(".csv")).sort();
  if (files.length === 0) throw new Error(`${opened.url} holds no CSV file`);
  return {
    collection: SNAPSHOT_COLLECTION,
    release: opened.archive.recordedSample ? `${opened.date}+${opened.archive.release}` : opened.date,
    files,
    index: { innerWords: false },
    items: (file, afterRow) => csvItems(opened.archive, file, afterRow, opened.date),
  };
}

/** A name search in the snapshot index, or undefined while none is loaded (then the API is asked). */
export async function searchSnapshot(
  ctx: Pick<HandlerContext, "store" | "upstreams" | "config">,
  q: string,
): Promise<{ search: CompanySearch<SnapshotItem>; fetchedAt: string; recordedSample: boolean } | undefined> {
  const index = GovTitleIndex.of(ctx.store);
  const found = await index.search<SnapshotItem>(SNAPSHOT_COLLECTION, q, SNAPSHOT_PAGE_SIZE);
  if (!found) return undefined;
  const { live } = await bulkImportStatus(ctx.store, SNAPSHOT_COLLECTION);
  const date = live?.release.slice(0, 10) ?? found.items[0]?.snapshot ?? "";
  const base = ctx.upstreams.client(GB_DOWNLOAD_UPSTREAM).baseUrl;
  return {
    search: {
      totalCount: found.totalCount,
      items: found.items,
      source: `${base}/BasicCompanyDataAsOneFile-${date}.zip`,
    },
    fetchedAt: live?.finishedAt ?? (await index.lastUpdated(SNAPSHOT_COLLECTION)) ?? new Date().toISOString(),
    recordedSample: live?.release.includes("+sample-") ?? ctx.upstreams.mode === "replay",
  };
}
