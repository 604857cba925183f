// Companies House records as served: the company profile (`GET /company/{number}`) and the search items
// (`GET /search/companies`). Absent keys are omitted upstream, never null: every optional key reads as null
// here. Officers and persons with significant control are never fetched.
import { z } from "zod";
import { type CompanyCommonBody, IsoDate, isoDate, text, type UkAddress } from "../answers.ts";

interface ChAddress {
  care_of?: string;
  po_box?: string;
  premises?: string;
  address_line_1?: string;
  address_line_2?: string;
  locality?: string;
  region?: string;
  postal_code?: string;
  country?: string;
}

export interface ChProfile {
  company_number?: string;
  company_name?: string;
  company_status?: string;
  company_status_detail?: string;
  type?: string;
  jurisdiction?: string;
  date_of_creation?: string;
  date_of_cessation?: string;
  sic_codes?: string[];
  registered_office_address?: ChAddress;
  accounts?: {
    next_due?: string;
    overdue?: boolean;
    last_accounts?: { made_up_to?: string };
    next_accounts?: { due_on?: string };
  };
  confirmation_statement?: { next_due?: string; last_made_up_to?: string; overdue?: boolean };
  has_charges?: boolean;
  has_insolvency_history?: boolean;
  previous_company_names?: Array<{ name?: string; effective_from?: string; ceased_on?: string }>;
  links?: Record<string, string>;
}

export interface ChSearchItem {
  company_number?: string;
  title?: string;
  company_status?: string;
  company_type?: string;
  date_of_creation?: string;
  date_of_cessation?: string;
  address?: ChAddress;
  address_snippet?: string;
}

const Filing = z.object({
  nextDue: IsoDate.nullable(),
  lastMadeUpTo: IsoDate.nullable(),
  overdue: z.boolean().nullable(),
});

export const GbItemExtrasShape = {
  companyNumber: z.string().describe("UK: the 8-character company number"),
  type: z.string().nullable().describe("UK: company type code (ltd, plc, llp, …; api-enumerations)"),
  dateOfCreation: IsoDate.nullable(),
  dateOfCessation: IsoDate.nullable().describe("UK: present for dissolved companies"),
  snapshot: IsoDate.optional().describe(
    "UK: on items found in our index of the monthly snapshot, its date; legalForm, type and status are then " +
      "the snapshot's texts (Private Limited Company, Active - Proposal to Strike off)",
  ),
};

export const GbExtrasShape = {
  ...GbItemExtrasShape,
  jurisdiction: z.string().nullable().describe("UK: england-wales, scotland, northern-ireland, …"),
  sicCodes: z.array(z.string()),
  accounts: Filing.describe("UK: annual accounts due and last made up to"),
  confirmationStatement: Filing.describe("UK: confirmation statement due and last made up to"),
  hasCharges: z.boolean().nullable(),
  hasInsolvencyHistory: z.boolean().nullable(),
  previousNames: z
    .array(z.object({ name: z.string(), from: IsoDate.nullable(), to: IsoDate.nullable() }))
    .describe("UK: earlier names with their validity windows"),
  links: z
    .object({
      self: z.string().optional(),
      filing_history: z.string().optional(),
      officers: z.string().optional(),
      exemptions: z.string().optional(),
    })
    .describe("UK: API paths of the company's resources, only those Companies House lists"),
};

export type GbItem = CompanyCommonBody & z.infer<z.ZodObject<typeof GbItemExtrasShape>>;
export type GbCompany = CompanyCommonBody & z.infer<z.ZodObject<typeof GbExtrasShape>>;

/** Statuses under which the company exists and may trade; every other known status is not active. */
const ACTIVE = new Set(["active", "open", "registered"]);

function activeOf(status: string | null): boolean | null {
  return status === null ? null : ACTIVE.has(status);
}

function ukAddress(address: ChAddress | undefined): z.infer<typeof UkAddress> | null {
  if (!address) return null;
  const line1 = [text(address.premises), text(address.address_line_1)].filter(Boolean).join(", ") || null;
  const body = {
    line1,
    line2: text(address.address_line_2),
    locality: text(address.locality),
    region: text(address.region),
    postalCode: text(address.postal_code),
    country: text(address.country),
  };
  return Object.values(body).some((v) => v !== null) ? body : null;
}

const companyPage = (number: string) =>
  `https://find-and-update.company-information.service.gov.uk/company/${number}`;

export function normaliseChItem(item: ChSearchItem): GbItem {
  const number = item.company_number as string;
  const status = text(item.company_status);
  return {
    id: number,
    name: text(item.title) ?? number,
    legalForm: text(item.company_type),
    status,
    active: activeOf(status),
    address: ukAddress(item.address) ?? text(item.address_snippet),
    created: isoDate(item.date_of_creation),
    sourceUrl: companyPage(number),
    companyNumber: number,
    type: text(item.company_type),
    dateOfCreation: isoDate(item.date_of_creation),
    dateOfCessation: isoDate(item.date_of_cessation),
  };
}

const LINKS = ["self", "filing_history", "officers", "exemptions"] as const;

export function normaliseChProfile(profile: ChProfile): GbCompany {
  const number = profile.company_number as string;
  const status = text(profile.company_status);
  const links: Record<string, string> = {};
  for (const key of LINKS) {
    const link = text(profile.links?.[key]);
    if (link) links[key] = link;
  }
  return {
    id: number,
    name: text(profile.company_name) ?? number,
    legalForm: text(profile.type),
    status,
    active: activeOf(status),
    address: ukAddress(profile.registered_office_address),
    created: isoDate(profile.date_of_creation),
    sourceUrl: companyPage(number),
    companyNumber: number,
    type: text(profile.type),
    dateOfCreation: isoDate(profile.date_of_creation),
    dateOfCessation: isoDate(profile.date_of_cessation),
    jurisdiction: text(profile.jurisdiction),
    sicCodes: profile.sic_codes ?? [],
    accounts: {
      nextDue: isoDate(profile.accounts?.next_due ?? profile.accounts?.next_accounts?.due_on),
      lastMadeUpTo: isoDate(profile.accounts?.last_accounts?.made_up_to),
      overdue: profile.accounts?.overdue ?? null,
    },
    confirmationStatement: {
      nextDue: isoDate(profile.confirmation_statement?.next_due),
      lastMadeUpTo: isoDate(profile.confirmation_statement?.last_made_up_to),
      overdue: profile.confirmation_statement?.overdue ?? null,
    },
    hasCharges: profile.has_charges ?? null,
    hasInsolvencyHistory: profile.has_insolvency_history ?? null,
    previousNames: (profile.previous_company_names ?? [])
      .filter((p) => text(p.name))
      .map((p) => ({
        name: text(p.name) as string,
        from: isoDate(p.effective_from),
        to: isoDate(p.ceased_on),
      })),
    links,
  };
}
