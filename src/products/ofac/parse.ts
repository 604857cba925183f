// SDN.XML and CONSOLIDATED.XML (OFAC's "sdnList" schema, the same for both lists) into compact entries.
// The files are large (SDN.XML is about 29 MB): the text is cut at each <sdnEntry> and one entry is parsed at
// a time, so no document tree of the whole file is ever held; only the compact entries are kept.
// Element names as OFAC writes them, seen in SDN.XML fixtures of public parsers: publshInformation (sic),
// Publish_Date (MM/DD/YYYY), Record_Count; sdnEntry: uid, firstName, lastName, title, sdnType, remarks,
// programList/program, akaList/aka (uid, type a.k.a./f.k.a./n.k.a., category strong/weak, firstName, lastName),
// addressList/address (address1-3, city, stateOrProvince, postalCode, country), idList/id (idType, idNumber,
// idCountry, issueDate, expirationDate), dateOfBirthList/dateOfBirthItem/dateOfBirth,
// placeOfBirthList/placeOfBirthItem/placeOfBirth, nationalityList/nationality/country,
// citizenshipList/citizenship/country, vesselInfo (callSign, vesselType, vesselFlag, vesselOwner, tonnage,
// grossRegisteredTonnage). Old files used the namespace http://tempuri.org/sdnList.xsd; names are matched
// without their prefix.
import { XMLParser } from "fast-xml-parser";

export type ListName = "SDN" | "CONSOLIDATED";
export type EntryType = "individual" | "entity" | "vessel" | "aircraft";
export type AliasKind = "aka" | "fka" | "nka";

interface SanctionAlias {
  kind: AliasKind;
  /** OFAC's quality flag: weak aliases are never screened on alone. */
  category: "strong" | "weak";
  firstName: string | null;
  lastName: string;
}

interface SanctionAddress {
  street: string | null;
  city: string | null;
  stateOrProvince: string | null;
  postalCode: string | null;
  country: string | null;
}

interface SanctionId {
  type: string;
  number: string | null;
  country: string | null;
  issueDate: string | null;
  expirationDate: string | null;
}

interface SanctionVessel {
  callSign: string | null;
  vesselType: string | null;
  flag: string | null;
  owner: string | null;
  tonnage: string | null;
  grossRegisteredTonnage: string | null;
}

export interface SanctionEntry {
  uid: number;
  list: ListName;
  type: EntryType;
  firstName: string | null;
  lastName: string;
  title: string | null;
  programs: string[];
  aliases: SanctionAlias[];
  addresses: SanctionAddress[];
  ids: SanctionId[];
  datesOfBirth: string[];
  placesOfBirth: string[];
  nationalities: string[];
  citizenships: string[];
  vessel: SanctionVessel | null;
  remarks: string | null;
}

interface ParsedList {
  list: ListName;
  /** Publish_Date as OFAC writes it, MM/DD/YYYY. */
  publishDate: string;
  /** The same date as YYYY-MM-DD. */
  publishedOn: string;
  recordCount: number | null;
  entries: SanctionEntry[];
}

export class SanctionsListError extends Error {}

const LISTS = new Set([
  "programList",
  "akaList",
  "addressList",
  "idList",
  "dateOfBirthList",
  "placeOfBirthList",
  "nationalityList",
  "citizenshipList",
]);

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  jPath: true,
  // A list's children are arrays even when there is one; the list elements themselves are single.
  isArray: (_name, jpath) => {
    const path = String(jpath).split(".");
    const parent = path[path.length - 2];
    return parent !== undefined && LISTS.has(parent);
  },
});

type Node = Record<string, unknown>;

function text(node: Node | undefined, key: string): string | null {
  const value = node?.[key];
  if (typeof value !== "string" && typeof value !== "number") return null;
  const trimmed = String(value).replace(/\s+/g, " ").trim();
  return trimmed === "" ? null : trimmed;
}

function children(node: Node | undefined, list: string, item: string): Node[] {
  const container = node?.[list];
  if (!container || typeof container !== "object") return [];
  const items = (container as Node)[item];
  return Array.isArray(items) ? (items.filter((i) => i && typeof i === "object") as Node[]) : [];
}

function strings(node: Node | undefined, list: string, item: string, field?: string): string[] {
  const container = node?.[list];
  if (!container || typeof container !== "object") return [];
  const items = (container as Node)[item];
  if (!Array.isArray(items)) return [];
  const values = items.map((i) =>
    field ? text(i as Node, field) : typeof i === "string" ? i.trim() || null : null,
  );
  return values.filter((v): v is string => v !== null);
}

const TYPES: Record<string, EntryType> = {
  individual: "individual",
  entity: "entity",
  vessel: "vessel",
  aircraft: "aircraft",
};

const ALIAS_KINDS: Record<string, AliasKind> = { "a.k.a.": "aka", "f.k.a.": "fka", "n.k.a.": "nka" };

function entryOf(node: Node, list: ListName): SanctionEntry | undefined {
  const uid = Number(text(node, "uid"));
  const lastName = text(node, "lastName");
  if (!Number.isInteger(uid) || uid <= 0 || !lastName) return undefined;
  const vesselNode = node.vesselInfo as Node | undefined;
  const vessel: SanctionVessel | null =
    vesselNode && typeof vesselNode === "object"
      ? {
          callSign: text(vesselNode, "callSign"),
          vesselType: text(vesselNode, "vesselType"),
          flag: text(vesselNode, "vesselFlag"),
          owner: text(vesselNode, "vesselOwner"),
          tonnage: text(vesselNode, "tonnage"),
          grossRegisteredTonnage: text(vesselNode, "grossRegisteredTonnage"),
        }
      : null;
  return {
    uid,
    list,
    type: TYPES[(text(node, "sdnType") ?? "entity").toLowerCase()] ?? "entity",
    firstName: text(node, "firstName"),
    lastName,
    title: text(node, "title"),
    programs: strings(node, "programList", "program"),
    aliases: children(node, "akaList", "aka").flatMap((aka): SanctionAlias[] => {
      const akaLast = text(aka, "lastName");
      if (!akaLast) return [];
      return [
        {
          kind: ALIAS_KINDS[(text(aka, "type") ?? "").toLowerCase()] ?? "aka",
          // An alias without a category is treated as strong: OFAC marks the weak ones.
          category: (text(aka, "category") ?? "strong").toLowerCase() === "weak" ? "weak" : "strong",
          firstName: text(aka, "firstName"),
          lastName: akaLast,
        },
      ];
    }),
    addresses: children(node, "addressList", "address").map((address) => {
      const street = ["address1", "address2", "address3"]
        .map((k) => text(address, k))
        .filter((v): v is string => v !== null)
        .join(", ");
      return {
        street: street === "" ? null : street,
        city: text(address, "city"),
        stateOrProvince: text(address, "stateOrProvince"),
        postalCode: text(address, "postalCode"),
        country: text(address, "country"),
      };
    }),
    ids: children(node, "idList", "id").flatMap((id): SanctionId[] => {
      const type = text(id, "idType");
      if (!type) return [];
      return [
        {
          type,
          number: text(id, "idNumber"),
          country: text(id, "idCountry"),
          issueDate: text(id, "issueDate"),
          expirationDate: text(id, "expirationDate"),
        },
      ];
    }),
    datesOfBirth: strings(node, "dateOfBirthList", "dateOfBirthItem", "dateOfBirth"),
    placesOfBirth: strings(node, "placeOfBirthList", "placeOfBirthItem", "placeOfBirth"),
    nationalities: strings(node, "nationalityList", "nationality", "country"),
    citizenships: strings(node, "citizenshipList", "citizenship", "country"),
    vessel,
    remarks: text(node, "remarks"),
  };
}

const PUBLISH_DATE = /<(?:\w+:)?Publish_Date>\s*(\d{2})\/(\d{2})\/(\d{4})\s*<\/(?:\w+:)?Publish_Date>/;
const RECORD_COUNT = /<(?:\w+:)?Record_Count>\s*(\d+)\s*<\/(?:\w+:)?Record_Count>/;
const ENTRY_START = /<(?:\w+:)?sdnEntry[\s>]/g;
const ENTRY_END = /<\/(?:\w+:)?sdnEntry\s*>/g;

/** Just the publication header (cheap: it sits in the first few hundred bytes). */
export function readPublication(xml: string): { publishDate: string; publishedOn: string } {
  const head = xml.slice(0, 4096);
  const date = head.match(PUBLISH_DATE) ?? xml.match(PUBLISH_DATE);
  if (!date) throw new SanctionsListError("no publshInformation/Publish_Date in the list");
  const [, month, day, year] = date;
  return { publishDate: `${month}/${day}/${year}`, publishedOn: `${year}-${month}-${day}` };
}

export function parseSanctionsList(xml: string, list: ListName): ParsedList {
  if (!/<(?:\w+:)?sdnList[\s>]/.test(xml.slice(0, 4096)))
    throw new SanctionsListError(`${list}: not an OFAC sdnList document`);
  const { publishDate, publishedOn } = readPublication(xml);
  const count = xml.slice(0, 4096).match(RECORD_COUNT);
  const entries: SanctionEntry[] = [];
  ENTRY_START.lastIndex = 0;
  let skipped = 0;
  for (let start = ENTRY_START.exec(xml); start; start = ENTRY_START.exec(xml)) {
    ENTRY_END.lastIndex = start.index;
    const end = ENTRY_END.exec(xml);
    if (!end) throw new SanctionsListError(`${list}: the list is cut off inside an sdnEntry`);
    const chunk = xml.slice(start.index, end.index + end[0].length);
    const parsed = parser.parse(chunk) as { sdnEntry?: Node };
    const entry = parsed.sdnEntry ? entryOf(parsed.sdnEntry, list) : undefined;
    if (entry) entries.push(entry);
    else skipped++;
    ENTRY_START.lastIndex = end.index + end[0].length;
  }
  const recordCount = count ? Number(count[1]) : null;
  if (recordCount !== null && entries.length + skipped !== recordCount) {
    throw new SanctionsListError(
      `${list}: Record_Count says ${recordCount} entries but the file holds ${entries.length + skipped}`,
    );
  }
  if (entries.length === 0) throw new SanctionsListError(`${list}: the list holds no entry`);
  return { list, publishDate, publishedOn, recordCount, entries };
}
