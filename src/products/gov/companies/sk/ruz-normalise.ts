// RÚZ records as served: the accounting unit, its financial statements (závierky), each statement's reports
// (výkazy) whose tables are flat arrays of strings without labels, and the templates (šablóny) that give
// those arrays their rows: each template table has `pocetDatovychStlpcov` columns per row, in row order, the
// current period in the last-but-one column and the prior period in the last (2 columns for liabilities and the
// income statement, 4 for a POD assets table: gross, adjustment, net, prior net).
import { z } from "zod";
import { IsoDate, isoDate, text } from "../answers.ts";

export interface RuzUnit {
  id?: number;
  ico?: string;
  dic?: string | null;
  nazovUJ?: string | null;
  mesto?: string | null;
  ulica?: string | null;
  psc?: string | null;
  datumZalozenia?: string | null;
  datumZrusenia?: string | null;
  pravnaForma?: string | null;
  skNace?: string | null;
  velkostOrganizacie?: string | null;
  konsolidovana?: boolean | null;
  idUctovnychZavierok?: number[];
  idVyrocnychSprav?: number[];
  datumPoslednejUpravy?: string | null;
  stav?: string | null;
}

export interface RuzStatement {
  id?: number;
  obdobieOd?: string | null;
  obdobieDo?: string | null;
  datumZostaveniaK?: string | null;
  datumPodania?: string | null;
  datumSchvalenia?: string | null;
  datumPrilozeniaSpravyAuditora?: string | null;
  typ?: string | null;
  idUctovnychVykazov?: number[];
  stav?: string | null;
}

interface RuzAttachment {
  id?: number;
  meno?: string | null;
  mimeType?: string | null;
  velkostPrilohy?: number | null;
}

export interface RuzReport {
  id?: number;
  idSablony?: number;
  mena?: string | null;
  pristupnostDat?: string | null;
  obsah?: { tabulky?: Array<{ nazov?: { sk?: string; en?: string }; data?: Array<string | null> }> } | null;
  prilohy?: RuzAttachment[];
}

export interface RuzTemplate {
  id?: number;
  nazov?: string | null;
  tabulky?: Array<{
    nazov?: { sk?: string; en?: string };
    pocetDatovychStlpcov?: number;
    riadky?: Array<{
      cisloRiadku?: number;
      oznacenie?: string | null;
      text?: { sk?: string; en?: string } | string;
    }>;
  }>;
}

const RUZ_SITE = "https://www.registeruz.sk/cruz-public";
export const MAX_STATEMENTS = 20;

const Period = z
  .string()
  .regex(/^\d{4}-\d{2}$/)
  .describe("YYYY-MM");

const StatementShape = z.object({
  statementId: z.number().int(),
  periodFrom: Period.nullable(),
  periodTo: Period.nullable(),
  balanceDate: IsoDate.nullable().describe("The date the statement is drawn up to"),
  type: z.string().nullable().describe("Riadna (ordinary), Mimoriadna, Priebežná, Kombinovaná"),
  filed: IsoDate.nullable(),
  approved: IsoDate.nullable(),
  auditorReportAttached: IsoDate.nullable().describe(
    "When the auditor's report was attached; null when none is",
  ),
});

const Line = z.object({
  row: z.number().int().describe("Row number in the template"),
  code: z.string().nullable().describe("The row's designation in the template (e.g. A., B.II.)"),
  label: z.string().describe("The row's text in the template (Slovak)"),
  current: z.number().nullable().describe("Current period, EUR (net, for assets)"),
  prior: z.number().nullable().describe("Prior period, EUR"),
});

const LatestFigures = z.object({
  statementId: z.number().int(),
  periodFrom: Period.nullable(),
  periodTo: Period.nullable(),
  currency: z.literal("EUR"),
  templateId: z.number().int(),
  templateName: z.string().nullable(),
  keyFigures: z
    .object({
      totalAssets: z.object({ current: z.number().nullable(), prior: z.number().nullable() }).nullable(),
      equity: z.object({ current: z.number().nullable(), prior: z.number().nullable() }).nullable(),
      liabilities: z.object({ current: z.number().nullable(), prior: z.number().nullable() }).nullable(),
      netResult: z.object({ current: z.number().nullable(), prior: z.number().nullable() }).nullable(),
    })
    .describe("Found by the template's row texts; null where the template has no such row"),
  tables: z.array(
    z.object({ name: z.string().nullable(), nameEn: z.string().nullable(), lines: z.array(Line) }),
  ),
});

const DocumentShape = z.object({
  statementId: z.number().int(),
  period: z.string().nullable().describe("YYYY-MM/YYYY-MM"),
  name: z.string().nullable(),
  mimeType: z.string().nullable(),
  sizeBytes: z.number().int().nullable(),
  url: z.url(),
});

export const AccountsShape = {
  id: z.string().describe("IČO"),
  name: z.string().nullable(),
  vatId: z.string().nullable().describe("DIČ"),
  legalFormCode: z.string().nullable(),
  activityCode: z.string().nullable().describe("SK NACE"),
  sizeCode: z.string().nullable().describe("RÚZ organisation-size code"),
  address: z.string().nullable(),
  founded: IsoDate.nullable(),
  dissolved: IsoDate.nullable(),
  consolidated: z.boolean().nullable(),
  statementCount: z.number().int().nonnegative().describe("All statements filed"),
  statementsListed: z
    .number()
    .int()
    .nonnegative()
    .describe("Statements listed here (the latest, at most 20)"),
  annualReportCount: z.number().int().nonnegative(),
  statements: z.array(StatementShape).describe("Latest first"),
  latestFigures: LatestFigures.nullable(),
  latestFiguresNote: z.string().nullable().describe("Why latestFigures is null"),
  documents: z.array(DocumentShape).describe("Attachments and generated PDFs of the latest two statements"),
  updated: IsoDate.nullable(),
  sourceUrl: z.url().describe("The unit's page at registeruz.sk"),
};

export type AccountsBody = z.infer<z.ZodObject<typeof AccountsShape>>;
export type StatementBody = z.infer<typeof StatementShape>;
type LatestFiguresBody = z.infer<typeof LatestFigures>;

const period = (value: unknown): string | null => {
  const t = text(value);
  return t && /^\d{4}-\d{2}$/.test(t) ? t : null;
};

export function normaliseStatement(statement: RuzStatement): StatementBody {
  return {
    statementId: statement.id as number,
    periodFrom: period(statement.obdobieOd),
    periodTo: period(statement.obdobieDo),
    balanceDate: isoDate(statement.datumZostaveniaK),
    type: text(statement.typ),
    filed: isoDate(statement.datumPodania),
    approved: isoDate(statement.datumSchvalenia),
    auditorReportAttached: isoDate(statement.datumPrilozeniaSpravyAuditora),
  };
}

/** Latest period first; for equal periods the later filing (higher id) first. */
export function byLatest(a: StatementBody, b: StatementBody): number {
  return (b.periodTo ?? "").localeCompare(a.periodTo ?? "") || b.statementId - a.statementId;
}

export function amount(raw: unknown): number | null {
  if (typeof raw === "number") return raw;
  if (typeof raw !== "string") return null;
  const cleaned = raw.replace(/[\s\u00a0]/g, "").replace(",", ".");
  if (cleaned === "" || !/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

const rowText = (text: { sk?: string; en?: string } | string | undefined): string =>
  (typeof text === "string" ? text : (text?.sk ?? text?.en ?? "")).trim();

const KEY_ROWS: Record<keyof LatestFiguresBody["keyFigures"], RegExp> = {
  totalAssets: /^spolu majetok/i,
  equity: /^vlastné imanie/i,
  liabilities: /^záväzky/i,
  netResult: /výsledok hospodárenia za účtovné obdobie po zdanení/i,
};

/** Every line of every table, mapped through the template; a data array that does not fit it is refused. */
export function mapThroughTemplate(
  report: RuzReport,
  template: RuzTemplate,
  statement: StatementBody,
): { figures: LatestFiguresBody } | { note: string } {
  const tables = report.obsah?.tabulky ?? [];
  const templateTables = template.tabulky ?? [];
  if (tables.length !== templateTables.length) {
    return {
      note: `The report has ${tables.length} tables and its template ${templateTables.length}: not mapped.`,
    };
  }
  const mapped: LatestFiguresBody["tables"] = [];
  for (const [index, table] of tables.entries()) {
    const shape = templateTables[index];
    const rows = shape?.riadky ?? [];
    const data = table.data ?? [];
    const columns = shape?.pocetDatovychStlpcov ?? (rows.length > 0 ? data.length / rows.length : 0);
    if (!Number.isInteger(columns) || columns < 2 || data.length !== rows.length * columns) {
      return {
        note: `Table ${index + 1} does not fit its template (${data.length} cells, ${rows.length} rows).`,
      };
    }
    mapped.push({
      name: text(shape?.nazov?.sk) ?? text(table.nazov?.sk),
      nameEn: text(shape?.nazov?.en) ?? text(table.nazov?.en),
      lines: rows.map((row, r) => ({
        row: row.cisloRiadku ?? r + 1,
        code: text(row.oznacenie),
        label: rowText(row.text),
        current: amount(data[r * columns + columns - 2]),
        prior: amount(data[r * columns + columns - 1]),
      })),
    });
  }
  const keyFigures = {} as LatestFiguresBody["keyFigures"];
  for (const [key, pattern] of Object.entries(KEY_ROWS) as Array<[keyof typeof KEY_ROWS, RegExp]>) {
    const line = mapped.flatMap((t) => t.lines).find((l) => pattern.test(l.label));
    keyFigures[key] = line ? { current: line.current, prior: line.prior } : null;
  }
  return {
    figures: {
      statementId: statement.statementId,
      periodFrom: statement.periodFrom,
      periodTo: statement.periodTo,
      currency: "EUR",
      templateId: template.id as number,
      templateName: text(template.nazov),
      keyFigures,
      tables: mapped,
    },
  };
}

export function documentsOf(statement: StatementBody, reports: RuzReport[]): AccountsBody["documents"] {
  const range =
    statement.periodFrom && statement.periodTo ? `${statement.periodFrom}/${statement.periodTo}` : null;
  const documents: AccountsBody["documents"] = [];
  for (const report of reports) {
    if (report.pristupnostDat === "Neverejné") continue;
    if ((report.obsah?.tabulky ?? []).length > 0 && typeof report.id === "number") {
      documents.push({
        statementId: statement.statementId,
        period: range,
        name: "Výkaz (PDF generated by RÚZ)",
        mimeType: "application/pdf",
        sizeBytes: null,
        url: `${RUZ_SITE}/domain/financialreport/pdf/${report.id}`,
      });
    }
    for (const attachment of report.prilohy ?? []) {
      if (typeof attachment.id !== "number") continue;
      documents.push({
        statementId: statement.statementId,
        period: range,
        name: text(attachment.meno),
        mimeType: text(attachment.mimeType),
        sizeBytes: typeof attachment.velkostPrilohy === "number" ? attachment.velkostPrilohy : null,
        url: `${RUZ_SITE}/domain/financialreport/attachment/${attachment.id}`,
      });
    }
  }
  return documents;
}

export function unitFields(unit: RuzUnit, ico: string) {
  const street = text(unit.ulica);
  const town = [text(unit.psc), text(unit.mesto)].filter(Boolean).join(" ");
  return {
    id: ico,
    name: text(unit.nazovUJ),
    vatId: text(unit.dic),
    legalFormCode: text(unit.pravnaForma),
    activityCode: text(unit.skNace),
    sizeCode: text(unit.velkostOrganizacie),
    address: [street, town].filter(Boolean).join(", ") || null,
    founded: isoDate(unit.datumZalozenia),
    dissolved: isoDate(unit.datumZrusenia),
    consolidated: typeof unit.konsolidovana === "boolean" ? unit.konsolidovana : null,
    annualReportCount: (unit.idVyrocnychSprav ?? []).length,
    updated: isoDate(unit.datumPoslednejUpravy),
    sourceUrl: `${RUZ_SITE}/domain/accountingentity/show/${unit.id}`,
  };
}
