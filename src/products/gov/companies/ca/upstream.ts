// Canada: Corporations Canada's federal corporations open data, our own index of it.
//
// The bulk archive https://ised-isde.canada.ca/cc/lgcy/download/OPEN_DATA_SPLIT.zip (weekly, keyless; open.canada.ca
// dataset 0032ce54-c5dd-4b66-99a0-320a7b5e99f2; Open Government Licence – Canada) holds OPEN_DATA_1.xml …
// OPEN_DATA_n.xml (one <corporation corporationId> per company under <cc:corpcan xmlns:cc="http://www.ic.gc.ca/corpcan"
// reportId="OPEN_DATA" date>) and codes.xml. Sources: public loaders
// of the real files — csps-efpc/federal-corporations (federal_corp.R: names/acts/statuses/activities carry their
// data in attributes, an address has attributes, repeated addressLine, and province/country as empty elements with
// a code attribute) and a public Python loader found by exact-string search (annualReturn with child elements
// annualMeetingDate and typeOfCorporation code=…; directorLimit minimum/maximum; one businessNumber); a public
// OPEN_DATA_SPLIT loader that waits for codes.xml in the archive; the official JSON API documentation
// (https://ised-isde.canada.ca/site/corporations-canada/en/accessing-federal-corporation-json-datasets: for
// corporation 1007 act "Boards of Trade Act — Part II", status "Active", every name, current or former, of
// nameType "Primary", told apart by current/effectiveDate/expiryDate). Not confirmed: codes.xml's element
// structure and list names (we read <code name><key value><full xml:lang>, as the loaders do), the
// numbers of codes beyond the loaders', and whether yearOfFiling is an attribute or a child element of
// annualReturn (both are read; the JSON API and the federal CSV carry the year). businessNumber may be the full
// 15-character BN (123456789RC0001), whose first 9 digits are the root. The file holds no directors.
import fs from "node:fs";
import path from "node:path";
import type { HandlerContext } from "../../../../catalog/product.ts";
import type { UpstreamSpec } from "../../../../upstream/client.ts";
import { type BulkArchive, folderArchive, readWhole, zipArchive } from "../../shared/bulk-archive.ts";
import { downloadBulkFile } from "../../shared/bulk-download.ts";
import type { BulkImportSource, BulkItem } from "../../shared/bulk-import.ts";
import { xmlRecords } from "../../shared/xml-elements.ts";
import { parseCodes } from "./codes.ts";
import { parseCorporation, type RecordContext } from "./normalise.ts";

export const CA_UPSTREAM_NAME = "gov-ca-corporations";
export const CA_DEFAULT_BASE = "https://ised-isde.canada.ca";
export const CA_ARCHIVE_PATH = "/cc/lgcy/download/OPEN_DATA_SPLIT.zip";
export const CA_COLLECTION = "co-ca";
export const CA_SAMPLE_DIR = path.join(import.meta.dirname, "fixtures", "OPEN_DATA_SPLIT");
const DATA_FILE = /^OPEN_DATA_(\d+)\.xml$/i;

/**
 * The archive is downloaded outside the upstream client (a large binary file); its client is asked only for the
 * base URL, which the registry resolves from GOV_CA_CORPORATIONS_BASE_URL once.
 */
const CA_UPSTREAM: UpstreamSpec = { name: CA_UPSTREAM_NAME, defaultBaseUrl: CA_DEFAULT_BASE };

type Ctx = Pick<HandlerContext, "config" | "upstreams">;

export function caArchiveUrl(ctx: Pick<Ctx, "upstreams">): string {
  return `${ctx.upstreams.client(CA_UPSTREAM).baseUrl}${CA_ARCHIVE_PATH}`;
}

interface OpenedArchive {
  archive: BulkArchive;
  url: string;
  /** When the archive on disk was downloaded (the answers' scrapedAt). */
  downloadedAt: string;
}

/** Live: the weekly archive, downloaded (or confirmed current) into the data directory. Replay: the samples. */
export async function openCaArchive(ctx: Ctx, sampleDir = CA_SAMPLE_DIR): Promise<OpenedArchive> {
  const url = caArchiveUrl(ctx);
  if (ctx.upstreams.mode === "replay") {
    return { archive: folderArchive(sampleDir), url, downloadedAt: new Date().toISOString() };
  }
  const download = await downloadBulkFile({
    url,
    dir: path.join(ctx.config.dataDir, "bulk", CA_COLLECTION),
    fileName: "OPEN_DATA_SPLIT.zip",
    userAgent: ctx.upstreams.userAgent,
    idleTimeoutMs: 120_000,
  });
  return {
    archive: await zipArchive(download.file),
    url,
    downloadedAt: fs.statSync(download.file).mtime.toISOString(),
  };
}

/** OPEN_DATA_1.xml, OPEN_DATA_2.xml, … in their numeric order. */
function caDataFiles(archive: BulkArchive): string[] {
  return archive.names
    .filter((n) => DATA_FILE.test(path.basename(n)))
    .sort(
      (a, b) => Number(DATA_FILE.exec(path.basename(a))?.[1]) - Number(DATA_FILE.exec(path.basename(b))?.[1]),
    );
}

/** The bulk import of one archive: every corporation record of every data file, codes resolved. */
export async function caBulkSource(opened: OpenedArchive): Promise<BulkImportSource> {
  const { archive } = opened;
  const codesName = archive.names.find((n) => path.basename(n).toLowerCase() === "codes.xml");
  if (!codesName) throw new Error(`${opened.url} holds no codes.xml`);
  const codes = parseCodes(await readWhole(archive, codesName));
  const files = caDataFiles(archive);
  if (files.length === 0) throw new Error(`${opened.url} holds no OPEN_DATA_n.xml file`);
  return {
    collection: CA_COLLECTION,
    release: archive.release,
    files,
    index: { innerWords: false },
    items: async function* (file, afterRow): AsyncGenerator<BulkItem> {
      const context: RecordContext = {
        codes,
        sourceFile: path.basename(file),
        sourceUrl: opened.url,
        scrapedAt: opened.downloadedAt,
      };
      for await (const record of xmlRecords(await archive.open(file), "corporation")) {
        if (record.ordinal <= afterRow) continue;
        const parsed = parseCorporation(record.xml, context);
        if ("error" in parsed) {
          const line = record.line + Math.max(0, (parsed.recordLine ?? 1) - 1);
          yield { row: record.ordinal, line, error: parsed.error };
          continue;
        }
        const { company } = parsed;
        yield {
          row: record.ordinal,
          line: record.line,
          entry: {
            id: company.corporationId,
            title: company.name,
            // The BN root is a searchable word: a bn9 lookup is a search for it (see lookupByBn9).
            alt: [company.bn9 ?? "", ...company.names.slice(1).map((n) => n.name)].join(" "),
            body: company,
          },
        };
      }
    },
  };
}
