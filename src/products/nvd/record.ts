// A stored CVE record joined with the known-exploited catalogue → the fields buyers get, and their schemas.
import { z } from "zod";
import { Day, Timestamp } from "./answer-types.ts";
import { normaliseCve } from "./normalise.ts";
import type { CveRow, KevRow } from "./repository.ts";
import { KEV_ATTRIBUTION, NVD_NOTICE } from "./upstream.ts";

const Severity = z.enum(["CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE"]);
const Text = z.string().nullable();

// Descriptions stay short: the answer schema travels in every 402 header (the Bazaar extension).
const KevSchema = z
  .object({
    source: z.enum(["cisa-kev-catalog", "nvd-record"]).describe("CISA's catalogue, or NVD's copy of it"),
    dateAdded: Day,
    dueDate: Day.nullable(),
    vendorProject: Text,
    product: Text,
    vulnerabilityName: Text,
    requiredAction: Text,
    knownRansomwareCampaignUse: Text.describe("Known or Unknown"),
    notes: Text,
  })
  .describe("Entry in CISA's Known Exploited Vulnerabilities catalogue");

const CvssSchema = z
  .object({
    version: z.enum(["4.0", "3.1", "3.0", "2.0"]),
    baseScore: z.number().min(0).max(10),
    baseSeverity: Severity.nullable(),
    vectorString: Text,
    source: Text.describe("Scorer: nvd@nist.gov, a CNA or an ADP"),
    type: Text.describe("Primary (NVD) or Secondary"),
  })
  .describe("The score severity and score come from");

/** Fields shared by a single record answer and a search hit. */
const core = {
  id: z.string(),
  published: Timestamp,
  lastModified: Timestamp,
  vulnStatus: z.string().describe("Received, Awaiting Analysis, Analyzed, Modified, Deferred, Rejected, …"),
  severity: Severity.nullable().describe("From CVSS v4.0, else v3.1, v3.0, v2; null when unscored"),
  score: z.number().min(0).max(10).nullable().describe("CVSS base score of that same metric"),
  description: z.string(),
};

const exploited = {
  knownExploited: z.boolean().describe("On CISA's known-exploited catalogue"),
  kev: KevSchema.nullable(),
};

export const CveHitSchema = z.object({
  ...core,
  ...exploited,
  cwes: z.array(z.string()),
  url: z.url(),
  fetchedAt: Timestamp,
});

export const CveRecordAnswer = z.object({
  ok: z.literal(true),
  ...core,
  source: z.url().describe("NVD API URL of the record"),
  fetchedAt: Timestamp,
  notice: z.string().describe("NVD's required notice"),
  ...exploited,
  cvss: CvssSchema.nullable(),
  cwes: z.array(z.string()),
  affected: z.array(z.object({ vendor: z.string(), product: z.string() })).describe("From vulnerable CPEs"),
  references: z.array(z.object({ url: z.string(), tags: z.array(z.string()) })),
  url: z.url().describe("The record on nvd.nist.gov"),
});

type CveHit = z.infer<typeof CveHitSchema>;
type CveRecordAnswerBody = z.infer<typeof CveRecordAnswer>;

const MAX_REFERENCES = 50;
const MAX_AFFECTED = 100;

export function nvdNotice(recordedSample: boolean): string {
  const notice = `${NVD_NOTICE} ${KEV_ATTRIBUTION}`;
  if (!recordedSample) return notice;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: these records come from recorded samples of NVD's and CISA's documented " +
    `response shapes (UPSTREAMS=replay); most are fictional placeholders. ${notice}`
  );
}

function kevOf(kev: KevRow | undefined, nvd: ReturnType<typeof parsedRecord>["nvdKev"]): CveHit["kev"] {
  if (kev) {
    return {
      source: "cisa-kev-catalog",
      dateAdded: kev.date_added,
      dueDate: kev.due_date,
      vendorProject: kev.vendor_project,
      product: kev.product,
      vulnerabilityName: kev.vulnerability_name,
      requiredAction: kev.required_action,
      knownRansomwareCampaignUse: kev.known_ransomware_campaign_use,
      notes: kev.notes,
    };
  }
  if (!nvd) return null;
  return {
    source: "nvd-record",
    dateAdded: nvd.dateAdded,
    dueDate: nvd.dueDate,
    vendorProject: null,
    product: null,
    vulnerabilityName: nvd.vulnerabilityName,
    requiredAction: nvd.requiredAction,
    knownRansomwareCampaignUse: null,
    notes: null,
  };
}

function parsedRecord(row: CveRow) {
  const parsed = normaliseCve(JSON.parse(row.json));
  if ("error" in parsed) throw new Error(`stored NVD record ${row.id} no longer normalises: ${parsed.error}`);
  return parsed;
}

export function cveHitOf(row: CveRow, kev: KevRow | undefined, cve = parsedRecord(row)): CveHit {
  const joined = kevOf(kev, cve.nvdKev);
  return {
    id: cve.id,
    published: cve.published,
    lastModified: cve.lastModified,
    vulnStatus: cve.vulnStatus,
    severity: cve.cvss?.baseSeverity ?? null,
    score: cve.cvss?.baseScore ?? null,
    description: cve.description,
    knownExploited: joined !== null,
    kev: joined,
    cwes: cve.cwes,
    url: `https://nvd.nist.gov/vuln/detail/${cve.id}`,
    fetchedAt: row.fetched_at,
  };
}

export function cveRecordOf(row: CveRow, kev: KevRow | undefined, source: string): CveRecordAnswerBody {
  const cve = parsedRecord(row);
  const hit = cveHitOf(row, kev, cve);
  return {
    ok: true,
    id: hit.id,
    published: hit.published,
    lastModified: hit.lastModified,
    vulnStatus: hit.vulnStatus,
    severity: hit.severity,
    score: hit.score,
    description: hit.description,
    source,
    fetchedAt: hit.fetchedAt,
    notice: nvdNotice(row.recorded_sample === 1),
    knownExploited: hit.knownExploited,
    kev: hit.kev,
    cvss: cve.cvss,
    cwes: hit.cwes,
    affected: cve.affected.slice(0, MAX_AFFECTED),
    references: cve.references.slice(0, MAX_REFERENCES),
    url: hit.url,
  };
}
