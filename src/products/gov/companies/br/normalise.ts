// Receita Federal CNPJ rows → what is staged during an import and the establishment served (one index entry per
// CNPJ). Column order (0-based here) from RF's layout (cnpj-metadados.pdf), as the public importers read it
// (sources in index.ts):
//   Empresas (7):           0 cnpj_basico, 1 razao_social, 2 natureza_juridica, 3 qualificacao_responsavel,
//                           4 capital_social (decimal comma), 5 porte_empresa (00/01/03/05), 6 ente_federativo
//   Estabelecimentos (30):  0 cnpj_basico, 1 cnpj_ordem, 2 cnpj_dv, 3 matriz_filial (1/2), 4 nome_fantasia,
//                           5 situacao_cadastral, 6 data_situacao, 7 motivo_situacao, 8 cidade_exterior, 9 pais,
//                           10 inicio_atividade, 11 cnae_principal, 12 cnae_secundaria (comma list),
//                           13 tipo_logradouro, 14 logradouro, 15 numero, 16 complemento, 17 bairro, 18 cep,
//                           19 uf, 20 municipio (RF code, not IBGE), 21 ddd_1, 22 telefone_1, 23 ddd_2,
//                           24 telefone_2, 25 ddd_fax, 26 fax, 27 correio_eletronico, 28 situacao_especial,
//                           29 data_situacao_especial
//   Simples (7):            0 cnpj_basico, 1 opcao_simples (S/N), 2 data_opcao, 3 data_exclusao, 4 opcao_mei (S/N),
//                           5 data_opcao_mei, 6 data_exclusao_mei
//   Code tables (2):        0 code, 1 description (Cnaes, Motivos, Municipios, Naturezas, Paises)
// LGPD: sole traders (empresário individual, MEI, natureza group 4 "pessoa física") are people. Their names lose
// the CPF RF appends to many of them, their address stops at the town and their contact details are withheld.
// Partners (Socios files) are never read.
import { z } from "zod";
import type { BulkItem } from "../../shared/bulk-import.ts";
import type { IndexEntry } from "../../shared/title-index.ts";
import { IsoDate, type StoredCompany } from "../answers.ts";
import { cnpjValid } from "./cnpj.ts";

export const CODE_TABLES = ["Cnaes", "Motivos", "Municipios", "Naturezas", "Paises"] as const;
type CodeTable = (typeof CODE_TABLES)[number];
export type CodeTables = Record<CodeTable, ReadonlyMap<string, unknown>>;

type BrFileKind = { kind: "table"; table: CodeTable } | { kind: "simples" | "empresas" | "estabelecimentos" };

const COLUMNS = { table: 2, simples: 7, empresas: 7, estabelecimentos: 30 } as const;

export function fileKind(file: string): BrFileKind | undefined {
  const base = file.replace(/\.zip$/i, "");
  const table = CODE_TABLES.find((t) => t.toLowerCase() === base.toLowerCase());
  if (table) return { kind: "table", table };
  if (/^simples$/i.test(base)) return { kind: "simples" };
  if (/^empresas\d+$/i.test(base)) return { kind: "empresas" };
  if (/^estabelecimentos\d+$/i.test(base)) return { kind: "estabelecimentos" };
  return undefined;
}

const STATUS: Record<string, string> = {
  "01": "NULA",
  "02": "ATIVA",
  "03": "SUSPENSA",
  "04": "INAPTA",
  "08": "BAIXADA",
};
const SIZE: Record<string, string> = {
  "01": "MICRO EMPRESA",
  "03": "EMPRESA DE PEQUENO PORTE",
  "05": "DEMAIS",
};

/** What Empresas rows stage for the establishments: [name, natureza, capital, porte]. */
type StagedCompany = [string, string, number | null, string];

export const BrExtrasShape = {
  tradeName: z.string().nullable().describe("Nome fantasia: the establishment's trade name"),
  headOffice: z
    .boolean()
    .describe("True for the company's head office (matriz), false for a branch (filial)"),
  soleTrader: z
    .boolean()
    .describe(
      "An individual entrepreneur (empresário individual, MEI, natureza 4xxx): name without the CPF, address to town level, no contact details (LGPD)",
    ),
  mei: z.boolean().describe("Registered as microempreendedor individual (MEI) in the Simples Nacional file"),
  statusDate: IsoDate.nullable().describe("Date of the current registration status"),
  statusReason: z.string().nullable().describe("Reason for the status (RF motivo), null when none is given"),
  activity: z
    .object({
      code: z.string().nullable().describe("Main CNAE code (7 digits)"),
      name: z.string().nullable().describe("Its description"),
      secondary: z.array(z.string()).describe("Secondary CNAE codes"),
    })
    .describe("Economic activities (CNAE)"),
  contact: z
    .object({
      phones: z.array(z.string()).describe("Phone numbers as filed, (DDD) number"),
      email: z.string().nullable(),
      note: z.string().nullable().describe("Why details are missing, when withheld"),
    })
    .describe("The business's contact details as filed with RF"),
  city: z.string().nullable().describe("Municipality (abroad: the foreign city)"),
  uf: z.string().nullable().describe("State (UF); EX abroad"),
  shareCapital: z
    .object({ value: z.number(), currency: z.literal("BRL") })
    .nullable()
    .describe("The company's share capital (capital social)"),
  size: z
    .string()
    .nullable()
    .describe("Company size (porte): MICRO EMPRESA, EMPRESA DE PEQUENO PORTE, DEMAIS"),
  release: z.string().describe("The RF monthly release the answer comes from (YYYY-MM)"),
};

type BrExtras = {
  tradeName: string | null;
  headOffice: boolean;
  soleTrader: boolean;
  mei: boolean;
  statusDate: string | null;
  statusReason: string | null;
  activity: { code: string | null; name: string | null; secondary: string[] };
  contact: { phones: string[]; email: string | null; note: string | null };
  city: string | null;
  uf: string | null;
  shareCapital: { value: number; currency: "BRL" } | null;
  size: string | null;
  release: string;
};

export type BrCompany = StoredCompany<BrExtras>;

/** Blank, "0", "00000000" or an impossible date → null; YYYYMMDD → YYYY-MM-DD. */
export function rfDate(value: string | undefined): string | null {
  const text = (value ?? "").trim();
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (!match) return null;
  const iso = `${match[1]}-${match[2]}-${match[3]}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== iso ? null : iso;
}

/** "120000000000,00" → 120000000000 */
export function rfDecimal(value: string | undefined): number | null {
  const text = (value ?? "").trim().replace(/\./g, "").replace(",", ".");
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  return Number(text);
}

function blank(value: string | undefined): string | null {
  const text = (value ?? "").trim().replace(/\s+/g, " ");
  return text === "" || /^\*+$/.test(text) ? null : text;
}

function code2(value: string | undefined): string {
  return (value ?? "").trim().padStart(2, "0");
}

/** Natureza jurídica codes of individuals: 213-5 empresário individual and group 4 (pessoas físicas). */
function isSoleTraderNature(code: string): boolean {
  return code === "2135" || code.startsWith("4");
}

/** RF writes many sole traders' names with their CPF after them, or their CNPJ root before them. */
export function withoutPersonalIds(name: string): string {
  return name
    .replace(/\s+\d{3}\.?\d{3}\.?\d{3}-?\d{2}$/, "")
    .replace(/^\d{2}\.\d{3}\.\d{3}\s+/, "")
    .trim();
}

function phone(ddd: string | undefined, number: string | undefined): string | null {
  const digits = (number ?? "").replace(/\D/g, "");
  if (digits.length < 6 || /^0+$/.test(digits)) return null;
  const local = `${digits.slice(0, -4)}-${digits.slice(-4)}`;
  const area = (ddd ?? "").replace(/\D/g, "");
  return area ? `(${area}) ${local}` : local;
}

function cep(value: string | undefined): string | null {
  const digits = (value ?? "").replace(/\D/g, "");
  return digits.length === 8 ? `${digits.slice(0, 5)}-${digits.slice(5)}` : blank(value);
}

export function shareUrl(shareBase: string, release: string, file: string): string {
  return `${shareBase}/download?path=${encodeURIComponent(`/${release}`)}&files=${encodeURIComponent(file)}`;
}

/** The official CNPJ card (comprovante de inscrição) lookup at Receita Federal. */
function cardUrl(cnpj: string): string {
  return `https://solucoes.receita.fazenda.gov.br/Servicos/cnpjreva/Cnpjreva_Solicitacao.asp?cnpj=${cnpj}`;
}

interface RowContext {
  file: string;
  release: string;
  /** The URL the file is published at (the answer's source). */
  fileUrl: string;
}

function wrongColumns(kind: keyof typeof COLUMNS, fields: string[]): string | undefined {
  const want = COLUMNS[kind];
  return fields.length === want ? undefined : `expected ${want} fields, found ${fields.length}`;
}

/** A code-table, Simples or Empresas row: what it stages (or why it is malformed); null when nothing. */
export function stagedRow(kind: BrFileKind, row: number, fields: string[]): BulkItem | null {
  const columns = kind.kind === "table" ? "table" : kind.kind;
  if (columns === "estabelecimentos") throw new Error("establishments are not staged");
  const wrong = wrongColumns(columns, fields);
  if (wrong) return { row, error: wrong };
  const root = (fields[0] ?? "").trim();
  if (kind.kind === "table") {
    const code = root;
    if (!code) return { row, error: "a code-table row without its code" };
    return { row, stage: { table: kind.table, key: code, value: blank(fields[1]) ?? "" } };
  }
  if (!/^[0-9A-Z]{8}$/.test(root))
    return { row, error: `cnpj_basico ${JSON.stringify(root)} is not 8 characters` };
  if (kind.kind === "simples") {
    return fields[4]?.trim() === "S" ? { row, stage: { key: `mei:${root}`, value: 1 } } : null;
  }
  const name = blank(fields[1]);
  if (!name) return { row, error: `company ${root} has no name (razao_social)` };
  const company: StagedCompany = [name, (fields[2] ?? "").trim(), rfDecimal(fields[4]), code2(fields[5])];
  return { row, stage: { key: `emp:${root}`, value: company } };
}

/** An Estabelecimentos row: an entry once its company (and MEI flag) is looked up, or why it is malformed. */
export function establishmentItem(
  row: number,
  fields: string[],
  tables: CodeTables,
  context: RowContext,
): BulkItem {
  const wrong = wrongColumns("estabelecimentos", fields);
  if (wrong) return { row, error: wrong };
  const root = (fields[0] ?? "").trim();
  const cnpj = `${root}${(fields[1] ?? "").trim()}${(fields[2] ?? "").trim()}`;
  if (!cnpjValid(cnpj))
    return { row, error: `CNPJ ${JSON.stringify(cnpj)} is malformed or fails its check digits` };
  const companyKey = `emp:${root}`;
  const meiKey = `mei:${root}`;
  return {
    row,
    lookup: [companyKey, meiKey],
    build: (found) => {
      const company = found.get(companyKey) as StagedCompany | undefined;
      if (!company) return `establishment ${cnpj}: its company ${root} is not in the Empresas files`;
      return establishmentEntry(cnpj, fields, company, found.has(meiKey), tables, context);
    },
  };
}

function text(table: ReadonlyMap<string, unknown>, code: string | undefined): string | null {
  const key = (code ?? "").trim();
  if (!key) return null;
  const value = table.get(key) ?? table.get(key.padStart(2, "0"));
  return typeof value === "string" && value !== "" ? value : null;
}

function establishmentEntry(
  cnpj: string,
  fields: string[],
  company: StagedCompany,
  mei: boolean,
  tables: CodeTables,
  context: RowContext,
): IndexEntry {
  const [rawName, nature, capital, size] = company;
  const soleTrader = mei || isSoleTraderNature(nature);
  const name = soleTrader ? withoutPersonalIds(rawName) : rawName;
  const status = code2(fields[5]);
  const uf = blank(fields[19]);
  const abroad = uf === "EX";
  const city = abroad ? blank(fields[8]) : text(tables.Municipios, fields[20]);
  const country = abroad ? text(tables.Paises, fields[9]) : null;
  const town = [city, abroad ? country : uf].filter(Boolean).join(" - ") || null;
  const street = [blank(fields[13]), blank(fields[14])].filter(Boolean).join(" ");
  const fullAddress = [street, blank(fields[15]), blank(fields[16]), blank(fields[17]), cep(fields[18])]
    .filter(Boolean)
    .join(", ");
  const address = soleTrader ? town : [fullAddress, town].filter(Boolean).join(", ") || null;
  const reason = code2(fields[7]);
  const mainActivity = blank(fields[11]);
  const phones = [phone(fields[21], fields[22]), phone(fields[23], fields[24])].filter(
    (p): p is string => p !== null,
  );
  const email = blank(fields[27])?.toLowerCase() ?? null;
  const natureName = text(tables.Naturezas, nature);
  const body: BrCompany = {
    id: cnpj,
    name,
    legalForm: natureName ? `${nature} ${natureName}` : nature || null,
    status: STATUS[status] ?? status,
    active: status === "02",
    address,
    created: rfDate(fields[10]),
    sourceUrl: cardUrl(cnpj),
    apiUrl: context.fileUrl,
    tradeName: blank(fields[4]),
    headOffice: (fields[3] ?? "").trim() === "1",
    soleTrader,
    mei,
    statusDate: rfDate(fields[6]),
    statusReason: reason === "00" ? null : (text(tables.Motivos, reason) ?? reason),
    activity: {
      code: mainActivity,
      name: text(tables.Cnaes, mainActivity ?? ""),
      secondary: (fields[12] ?? "")
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean),
    },
    contact: soleTrader
      ? {
          phones: [],
          email: null,
          note: "Withheld: a sole trader's contact details are personal data (LGPD).",
        }
      : { phones, email, note: null },
    city,
    uf,
    shareCapital: capital === null ? null : { value: capital, currency: "BRL" },
    size: SIZE[size] ?? null,
    release: context.release,
  };
  return {
    id: cnpj,
    title: name,
    alt: [body.tradeName, city, uf].filter(Boolean).join(" "),
    body,
  };
}

/** A stored establishment as a search item and as a single answer's company (the file URL is the source). */
export function servedCompany(body: BrCompany): Omit<BrCompany, "apiUrl"> {
  const { apiUrl: _source, ...company } = body;
  return company;
}
