// RDAP domain object (RFC 9083) → the record this service caches. Registries differ: ldhName case (Verisign
// upper-cases), date precision, thin registries (.com/.net: registrar only, the registrar's own RDAP server in
// links[rel=related]), nested entities (abuse contact inside the registrar), jCard arrays
// ([name, params, type, value]), and redaction: RFC 9537 `redacted` members, "REDACTED FOR PRIVACY" remarks or
// names, or contacts left empty. Dates: RFC 9083 asks for RFC 3339, but registrars also send an offset without a
// colon (MarkMonitor: 2028-09-13T07:00:00.000+0000); those are normalised, and a date that is neither is kept
// as sent in `events` only.
import { isObject, type JsonObject } from "../../json.ts";

export class RdapShapeError extends Error {}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

const RDAP_DATE =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:([Zz])|([+-])(\d{2}):?(\d{2})?)$/;

/** An RDAP event date as RFC 3339 (`+0000` becomes `+00:00`, seconds added when missing); null if not a date. */
export function normaliseRdapDate(raw: string): string | null {
  const m = RDAP_DATE.exec(raw.trim());
  if (!m) return null;
  const [, day, clock, zulu, sign, hours, minutes] = m;
  const time = (clock as string).length === 5 ? `${clock}:00` : (clock as string);
  const offset = zulu ? "Z" : `${sign}${hours}:${minutes ?? "00"}`;
  const iso = `${day}T${time}${offset}`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
}

interface StoredContact {
  roles: string[];
  handle: string | null;
  name: string | null;
  organization: string | null;
  email: string | null;
  phone: string | null;
  redacted: boolean;
}

interface StoredRegistrar {
  name: string | null;
  ianaId: string | null;
  handle: string | null;
  url: string | null;
  abuseEmail: string | null;
  abusePhone: string | null;
}

interface StoredEvent {
  action: string;
  date: string;
}

interface StoredRedaction {
  field: string;
  method: string | null;
  reason: string | null;
}

interface StoredNotice {
  title: string | null;
  description: string[];
  links: string[];
}

export interface StoredDomain {
  ldhName: string;
  unicodeName: string | null;
  handle: string | null;
  status: string[];
  events: StoredEvent[];
  nameservers: string[];
  delegationSigned: boolean | null;
  dsRecords: Array<{
    keyTag: number | null;
    algorithm: number | null;
    digestType: number | null;
    digest: string | null;
  }>;
  registrar: StoredRegistrar | null;
  /** The registrar's own RDAP answer for this domain (thin registries refer to it). */
  referralUrl: string | null;
  contacts: StoredContact[];
  redactions: StoredRedaction[];
  notices: StoredNotice[];
  conformance: string[];
}

/** The jCard properties of an entity: name → first value (text or uri). */
function vcard(entity: JsonObject): Map<string, string> {
  const out = new Map<string, string>();
  const card = entity.vcardArray;
  if (!Array.isArray(card) || !Array.isArray(card[1])) return out;
  for (const property of card[1] as unknown[]) {
    if (!Array.isArray(property) || typeof property[0] !== "string") continue;
    const name = property[0].toLowerCase();
    const raw = property[3];
    const value =
      typeof raw === "string"
        ? raw
        : Array.isArray(raw)
          ? raw.filter((v) => typeof v === "string").join(" ")
          : null;
    if (value !== null && !out.has(name)) out.set(name, value.replace(/^(mailto|tel):/i, ""));
  }
  return out;
}

const REDACTED = /redacted|withheld|privacy|not disclosed|data protected/i;

function isRedactedEntity(entity: JsonObject, card: Map<string, string>): boolean {
  const remarks = objects(entity.remarks);
  if (
    remarks.some(
      (r) => REDACTED.test(String(r.title ?? "")) || strings(r.description).some((d) => REDACTED.test(d)),
    )
  ) {
    return true;
  }
  const name = card.get("fn") ?? "";
  return name.trim() === "" || REDACTED.test(name) || REDACTED.test(card.get("email") ?? "");
}

function contactOf(entity: JsonObject): StoredContact {
  const card = vcard(entity);
  const redacted = isRedactedEntity(entity, card);
  const keep = (value: string | undefined) =>
    value && !REDACTED.test(value) && value.trim() !== "" ? value : null;
  return {
    roles: strings(entity.roles),
    handle: text(entity.handle),
    name: keep(card.get("fn")),
    organization: keep(card.get("org")),
    email: keep(card.get("email")),
    phone: keep(card.get("tel")),
    redacted,
  };
}

function registrarOf(entity: JsonObject): StoredRegistrar {
  const card = vcard(entity);
  const ianaId =
    objects(entity.publicIds).find((p) => /iana registrar id/i.test(String(p.type ?? "")))?.identifier ??
    null;
  const abuse = objects(entity.entities).find((e) => strings(e.roles).includes("abuse"));
  const abuseCard = abuse ? vcard(abuse) : new Map<string, string>();
  return {
    name: text(card.get("fn")) ?? text(card.get("org")),
    ianaId: ianaId === null ? null : String(ianaId),
    handle: text(entity.handle),
    url: text(card.get("url")),
    abuseEmail: text(abuseCard.get("email")),
    abusePhone: text(abuseCard.get("tel")),
  };
}

function redactionOf(member: JsonObject): StoredRedaction | undefined {
  const name = isObject(member.name) ? (text(member.name.description) ?? text(member.name.type)) : null;
  if (!name) return undefined;
  const reason = isObject(member.reason)
    ? (text(member.reason.description) ?? text(member.reason.type))
    : null;
  return { field: name, method: text(member.method), reason };
}

export function normaliseDomain(body: string): StoredDomain {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new RdapShapeError("the RDAP answer is not JSON");
  }
  if (!isObject(doc) || doc.objectClassName !== "domain" || !text(doc.ldhName)) {
    throw new RdapShapeError("the RDAP answer is not a domain object");
  }
  const entities = objects(doc.entities);
  const registrarEntity = entities.find((e) => strings(e.roles).includes("registrar"));
  const links = objects(doc.links);
  const related = links.find(
    (l) => l.rel === "related" && (l.type === undefined || String(l.type).includes("rdap")) && text(l.href),
  );
  const secure = isObject(doc.secureDNS) ? doc.secureDNS : {};
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  return {
    ldhName: (text(doc.ldhName) as string).toLowerCase(),
    unicodeName: text(doc.unicodeName),
    handle: text(doc.handle),
    status: strings(doc.status),
    events: objects(doc.events).flatMap((e) => {
      const action = text(e.eventAction);
      const date = text(e.eventDate);
      return action && date ? [{ action, date: normaliseRdapDate(date) ?? date }] : [];
    }),
    nameservers: objects(doc.nameservers)
      .map((n) => text(n.ldhName)?.toLowerCase() ?? null)
      .filter((n): n is string => n !== null),
    delegationSigned: typeof secure.delegationSigned === "boolean" ? secure.delegationSigned : null,
    dsRecords: objects(secure.dsData).map((ds) => ({
      keyTag: num(ds.keyTag),
      algorithm: num(ds.algorithm),
      digestType: num(ds.digestType),
      digest: text(ds.digest),
    })),
    registrar: registrarEntity ? registrarOf(registrarEntity) : null,
    referralUrl: related ? (text(related.href) as string) : null,
    contacts: entities.filter((e) => !strings(e.roles).includes("registrar")).map(contactOf),
    redactions: objects(doc.redacted).flatMap((m) => {
      const r = redactionOf(m);
      return r ? [r] : [];
    }),
    notices: objects(doc.notices).map((n) => ({
      title: text(n.title),
      description: strings(n.description),
      links: objects(n.links)
        .map((l) => text(l.href))
        .filter((h): h is string => h !== null),
    })),
    conformance: strings(doc.rdapConformance),
  };
}

/** The registry's terms-of-service notice (RDAP `notices`), or the first notice when none is titled so. */
export function termsNotice(notices: StoredNotice[]): StoredNotice | null {
  return notices.find((n) => /terms|conditions|use/i.test(n.title ?? "")) ?? notices[0] ?? null;
}

/** An RDAP error body (RFC 9083 §6): errorCode, title, description. */
export function rdapErrorOf(body: string): { title: string | null; description: string[] } {
  try {
    const doc = JSON.parse(body) as unknown;
    if (isObject(doc)) return { title: text(doc.title), description: strings(doc.description) };
  } catch {
    // not JSON
  }
  return { title: null, description: [] };
}
