// Derives the standard financial statements from an SEC companyfacts document at warm time: one value per
// calendar period for about 40 line items, the last 10 years and 12 quarters, stored precomputed.
import { LINE_ITEMS, type LineItem, parseTagRef, type ValueKind } from "./line-items.ts";
import {
  dateOfDay,
  dayNumber,
  durationKind,
  nearestQuarter,
  nearestYear,
  parseQuarterLabel,
  parseYearLabel,
  quarterEndDay,
  quarterLabel,
  yearEndDay,
} from "./periods.ts";

const ANNUAL_PERIODS = 10;
const QUARTERLY_PERIODS = 12;
/** A tag whose last period ends this long before the item's latest one is a tag the company stopped using. */
const STOPPED_AFTER_DAYS = 100;
/** Cover-page values (shares outstanding) are dated up to this long after the fiscal year end. */
const COVER_DATE_DAYS = 120;

export const DEDUPE_RULE =
  "One value per calendar period (CY2024, CY2024Q3): SEC's frame where the fact has one, otherwise the calendar " +
  "year or quarter whose last day is nearest the period's end date. Facts for the same start and end keep the one " +
  "SEC framed, else the latest filed. Quarters that filings do not report are derived within the fiscal year by " +
  "subtraction (6- and 9-month year-to-date values minus the quarters before them; fiscal Q4 = annual minus the " +
  "first nine months) for flow items only, marked derived: balances (instants), per-share values and share counts " +
  "are never derived. Each line item reads its XBRL tags in order of preference, except that a tag the company " +
  `stopped using (its last period ends over ${STOPPED_AFTER_DAYS} days before the item's latest) keeps the periods ` +
  "it reported and ends in the year it stopped; the next tag takes over after it. Annual balances are the values " +
  `at each fiscal year end. Last ${ANNUAL_PERIODS} calendar years and ${QUARTERLY_PERIODS} calendar quarters. ` +
  "The frame chooses the period, not the source: each value is credited (form, filed, accn, fy, fp) to the periodic " +
  "report (10-K, 10-Q, 20-F, 40-F or an amendment) that first reported it for that period, not to the proxy " +
  "statement, 8-K, prospectus or later report that repeated it and carries SEC's frame.";

/** One fact of companyfacts, as SEC publishes it. */
export interface XbrlFact {
  start?: string;
  end: string;
  val: number;
  accn?: string;
  fy?: number | null;
  fp?: string | null;
  form?: string;
  filed?: string;
  frame?: string;
}

interface XbrlConcept {
  label?: string | null;
  description?: string | null;
  units?: Record<string, XbrlFact[]>;
}

export interface CompanyFactsDocument {
  cik?: number | string;
  entityName?: string;
  facts?: Record<string, Record<string, XbrlConcept>>;
}

export interface PeriodEntry {
  period: string;
  start: string | null;
  end: string;
  value: number;
  form: string;
  filed: string;
  accn: string;
  /** The XBRL tag the value was reported under (for derived values, the later of the two facts). */
  tag: string;
  /** True when the value was computed by subtraction rather than reported. */
  derived: boolean;
}

export interface LineItemSeries {
  taxonomy: string;
  label: string;
  unit: string;
  /** The XBRL tags this item was read from for this company, most recently used first. */
  xbrlTags: string[];
  annual: PeriodEntry[];
  quarterly: PeriodEntry[];
}

export interface FinancialHighlight {
  tag: string;
  taxonomy: string;
  label: string;
  unit: string;
  value: number;
  period: { calendar: string; start: string | null; end: string; instant: boolean };
  end: string;
  filed: string;
  form: string;
  fy: number | null;
  fp: string | null;
}

export interface DerivedFinancials {
  cik: string;
  entityName: string;
  facts: Record<string, LineItemSeries>;
  latestPeriodEnd: Record<string, string>;
  availableTags: string[];
  highlights: FinancialHighlight[];
}

const HIGHLIGHT_ITEMS = [
  "revenue",
  "grossProfit",
  "operatingIncome",
  "netIncome",
  "operatingCashFlow",
  "cash",
  "totalAssets",
  "totalLiabilities",
  "stockholdersEquity",
  "sharesOutstanding",
];

const ANNUAL_FORMS = /^(10-K|10-KT|20-F|40-F)(\/A)?$/;
/** The periodic reports a value is credited to; SEC frames whichever copy of a fact was filed last. */
const PERIODIC_FORMS = /^(10-K|10-KT|10-Q|10-QT|20-F|40-F)(\/A)?$/;

/** A fact of one of the item's tags, with what ranking and labelling need. */
interface Candidate {
  fact: XbrlFact;
  tag: string;
  taxonomy: string;
  conceptLabel: string;
  rank: number;
  startDay: number | null;
  endDay: number;
  framed: boolean;
}

/** One value chosen for one calendar period. */
interface Pick {
  label: string;
  /** The calendar year (annual) or quarter index (quarterly) the label names. */
  labelIndex: number;
  labelEndDay: number;
  candidate: Candidate;
  value: number;
  startDay: number | null;
  endDay: number;
  derived: boolean;
}

function unitMatches(kind: ValueKind, unit: string): boolean {
  if (kind === "money") return /^[A-Z]{3}$/.test(unit);
  if (kind === "perShare") return /^[A-Z]{3}\/shares$/.test(unit);
  return unit === "shares";
}

function preferredUnit(kind: ValueKind): string {
  return kind === "money" ? "USD" : kind === "perShare" ? "USD/shares" : "shares";
}

/** The unit an item is read in: USD (or USD/shares, shares) where reported, else the most used matching unit. */
function chooseUnit(item: LineItem, concepts: XbrlConcept[]): string | undefined {
  const counts = new Map<string, number>();
  for (const concept of concepts) {
    for (const [unit, facts] of Object.entries(concept.units ?? {})) {
      if (unitMatches(item.kind, unit) && Array.isArray(facts))
        counts.set(unit, (counts.get(unit) ?? 0) + facts.length);
    }
  }
  if (counts.has(preferredUnit(item.kind))) return preferredUnit(item.kind);
  let best: string | undefined;
  for (const [unit, count] of counts) if (best === undefined || count > (counts.get(best) ?? 0)) best = unit;
  return best;
}

/** The fact as a candidate, or undefined when it is malformed or of the other period type. */
function toCandidate(
  fact: XbrlFact,
  instant: boolean,
): Omit<Candidate, "tag" | "taxonomy" | "conceptLabel" | "rank"> | undefined {
  if (!fact || typeof fact.val !== "number" || !Number.isFinite(fact.val) || typeof fact.end !== "string")
    return undefined;
  const endDay = dayNumber(fact.end);
  if (Number.isNaN(endDay)) return undefined;
  const framed = typeof fact.frame === "string" && fact.frame.length > 0;
  const hasStart = typeof fact.start === "string";
  if (instant) return hasStart ? undefined : { fact, startDay: null, endDay, framed };
  if (!hasStart) return undefined;
  const startDay = dayNumber(fact.start as string);
  if (Number.isNaN(startDay) || startDay > endDay) return undefined;
  return { fact, startDay, endDay, framed };
}

/** Gathers the item's facts in one unit, each tagged with the rank of the tag it came from. */
function gatherCandidates(
  item: LineItem,
  facts: NonNullable<CompanyFactsDocument["facts"]>,
): { unit: string; candidates: Candidate[]; tagOrder: string[] } | undefined {
  const present = item.tags
    .map(parseTagRef)
    .map((ref, priority) => ({ ...ref, priority, concept: facts[ref.taxonomy]?.[ref.tag] }))
    .filter((r): r is typeof r & { concept: XbrlConcept } => r.concept !== undefined);
  if (present.length === 0) return undefined;
  const unit = chooseUnit(
    item,
    present.map((p) => p.concept),
  );
  if (!unit) return undefined;
  const instant = item.period === "instant";

  const perTag = present
    .map((p) => {
      const usable: Array<NonNullable<ReturnType<typeof toCandidate>>> = [];
      let lastEnd = Number.NEGATIVE_INFINITY;
      const raw = p.concept.units?.[unit];
      for (const fact of Array.isArray(raw) ? raw : []) {
        const candidate = toCandidate(fact, instant);
        if (!candidate) continue;
        usable.push(candidate);
        if (candidate.endDay > lastEnd) lastEnd = candidate.endDay;
      }
      return { ...p, usable, lastEnd };
    })
    .filter((p) => p.usable.length > 0);
  if (perTag.length === 0) return undefined;

  // Stopped tags rank first, in the order they stopped, so each keeps the periods it reported; the tags still
  // in use follow in order of preference.
  let latest = Number.NEGATIVE_INFINITY;
  for (const p of perTag) if (p.lastEnd > latest) latest = p.lastEnd;
  const stopped = (p: { lastEnd: number }) => p.lastEnd < latest - STOPPED_AFTER_DAYS;
  perTag.sort((a, b) => {
    const sa = stopped(a);
    const sb = stopped(b);
    if (sa !== sb) return sa ? -1 : 1;
    if (sa && a.lastEnd !== b.lastEnd) return a.lastEnd - b.lastEnd;
    return a.priority - b.priority;
  });

  const candidates: Candidate[] = [];
  perTag.forEach((p, rank) => {
    const conceptLabel = typeof p.concept.label === "string" ? p.concept.label : p.tag;
    for (const usable of p.usable)
      candidates.push({ ...usable, tag: p.tag, taxonomy: p.taxonomy, conceptLabel, rank });
  });
  const tagOrder = [...perTag].sort((a, b) => b.lastEnd - a.lastEnd).map((p) => p.tag);
  return { unit, candidates, tagOrder };
}

/** Better of two facts for the same start and end: the preferred tag, then SEC's frame, then the latest filed. */
function betterFact(a: Candidate, b: Candidate): Candidate {
  if (a.rank !== b.rank) return a.rank < b.rank ? a : b;
  if (a.framed !== b.framed) return a.framed ? a : b;
  const fa = a.fact.filed ?? "";
  const fb = b.fact.filed ?? "";
  if (fa !== fb) return fa > fb ? a : b;
  return (a.fact.accn ?? "") >= (b.fact.accn ?? "") ? a : b;
}

function periodKey(startDay: number | null, endDay: number): number {
  // Day numbers stay well below 2^20, so one number identifies the pair.
  return (startDay ?? -1) * 1_048_576 + endDay;
}

function earlierFiled(a: XbrlFact, b: XbrlFact): XbrlFact {
  const fa = a.filed ?? "";
  const fb = b.filed ?? "";
  if (fa !== fb) return fa < fb ? a : b;
  return (a.accn ?? "") <= (b.accn ?? "") ? a : b;
}

/**
 * The chosen fact credited to the periodic report that first reported the same value for the same period
 * under the same tag; the value, period and frame stay. Without such a report the fact keeps its own source.
 */
function creditToFirstReport(chosen: Candidate, sameTagAndPeriod: Candidate[]): Candidate {
  let first: XbrlFact | undefined;
  for (const other of sameTagAndPeriod) {
    if (other.fact.val !== chosen.fact.val || !PERIODIC_FORMS.test(other.fact.form ?? "")) continue;
    first = first ? earlierFiled(first, other.fact) : other.fact;
  }
  if (!first || first === chosen.fact) return chosen;
  return {
    ...chosen,
    fact: {
      ...chosen.fact,
      accn: first.accn,
      form: first.form,
      filed: first.filed,
      fy: first.fy ?? null,
      fp: first.fp ?? null,
    },
  };
}

function dedupeByPeriod(candidates: Candidate[]): Candidate[] {
  const byPeriod = new Map<number, Candidate>();
  const copies = new Map<string, Candidate[]>();
  for (const candidate of candidates) {
    const key = periodKey(candidate.startDay, candidate.endDay);
    const current = byPeriod.get(key);
    byPeriod.set(key, current ? betterFact(current, candidate) : candidate);
    const copyKey = `${candidate.rank}|${key}`;
    const group = copies.get(copyKey);
    if (group) group.push(candidate);
    else copies.set(copyKey, [candidate]);
  }
  return [...byPeriod.entries()].map(([key, chosen]) =>
    creditToFirstReport(chosen, copies.get(`${chosen.rank}|${key}`) ?? []),
  );
}

/** Better of two values for the same calendar period. */
function betterPick(a: Pick, b: Pick): Pick {
  if (a.derived !== b.derived) return a.derived ? b : a;
  if (a.candidate.rank !== b.candidate.rank) return a.candidate.rank < b.candidate.rank ? a : b;
  if (a.candidate.framed !== b.candidate.framed) return a.candidate.framed ? a : b;
  const da = Math.abs(a.endDay - a.labelEndDay);
  const db = Math.abs(b.endDay - b.labelEndDay);
  if (da !== db) return da < db ? a : b;
  return (a.candidate.fact.filed ?? "") >= (b.candidate.fact.filed ?? "") ? a : b;
}

function addPick(into: Map<number, Pick>, pick: Pick): void {
  const current = into.get(pick.labelIndex);
  into.set(pick.labelIndex, current ? betterPick(current, pick) : pick);
}

function yearPick(candidate: Candidate): Pick {
  const framedYear = candidate.framed ? parseYearLabel(candidate.fact.frame as string) : undefined;
  const year = framedYear ?? nearestYear(candidate.endDay);
  return {
    label: `CY${year}`,
    labelIndex: year,
    labelEndDay: yearEndDay(year),
    candidate,
    value: candidate.fact.val,
    startDay: candidate.startDay,
    endDay: candidate.endDay,
    derived: false,
  };
}

function quarterPick(candidate: Candidate): Pick {
  const frame = candidate.framed ? (candidate.fact.frame as string).replace(/I$/, "") : "";
  const index = (frame ? parseQuarterLabel(frame) : undefined) ?? nearestQuarter(candidate.endDay);
  return {
    label: quarterLabel(index),
    labelIndex: index,
    labelEndDay: quarterEndDay(index),
    candidate,
    value: candidate.fact.val,
    startDay: candidate.startDay,
    endDay: candidate.endDay,
    derived: false,
  };
}

function subtract(a: number, b: number): number {
  const difference = a - b;
  return Number.isInteger(a) && Number.isInteger(b) ? difference : Math.round(difference * 1e6) / 1e6;
}

/**
 * Quarters missing from the filings, derived within each fiscal year: every fact starting on the fiscal year's
 * first day is a year-to-date total; reported quarters extend the chain; each gap of about a quarter between two
 * totals is a quarter (so Q2 = H1 - Q1, Q3 = 9M - H1, Q4 = FY - 9M).
 */
function deriveQuarters(durations: Candidate[], direct: Set<number>): Pick[] {
  const byStart = new Map<number, Candidate[]>();
  const fiscalStarts = new Set<number>();
  const quarters: Candidate[] = [];
  for (const c of durations) {
    const kind = durationKind(c.endDay - (c.startDay as number) + 1);
    if (kind === "other") continue;
    const start = c.startDay as number;
    const group = byStart.get(start);
    if (group) group.push(c);
    else byStart.set(start, [c]);
    if (kind === "quarter") quarters.push(c);
    else fiscalStarts.add(start);
  }
  quarters.sort((a, b) => (a.startDay as number) - (b.startDay as number));

  const derived: Pick[] = [];
  for (const start of fiscalStarts) {
    const totals = new Map<number, { value: number; candidate: Candidate | undefined }>();
    totals.set(start - 1, { value: 0, candidate: undefined });
    for (const c of byStart.get(start) ?? []) totals.set(c.endDay, { value: c.fact.val, candidate: c });
    for (const q of quarters) {
      if ((q.startDay as number) < start || q.endDay - start >= 400) continue;
      const base = totals.get((q.startDay as number) - 1);
      if (base && !totals.has(q.endDay))
        totals.set(q.endDay, { value: base.value + q.fact.val, candidate: q });
    }
    const ends = [...totals.keys()].sort((a, b) => a - b);
    for (let i = 1; i < ends.length; i++) {
      const previousEnd = ends[i - 1] as number;
      const end = ends[i] as number;
      if (durationKind(end - previousEnd) !== "quarter" || direct.has(periodKey(previousEnd + 1, end)))
        continue;
      const later = totals.get(end)!;
      const earlier = totals.get(previousEnd)!;
      const index = nearestQuarter(end);
      derived.push({
        label: quarterLabel(index),
        labelIndex: index,
        labelEndDay: quarterEndDay(index),
        candidate: later.candidate as Candidate,
        value: subtract(later.value, earlier.value),
        startDay: previousEnd + 1,
        endDay: end,
        derived: true,
      });
    }
  }
  return derived;
}

interface ItemPicks {
  item: LineItem;
  unit: string;
  tagOrder: string[];
  annual: Map<number, Pick>;
  quarterly: Map<number, Pick>;
}

function pickDurations(item: LineItem, candidates: Candidate[]): Pick[][] {
  const annual: Pick[] = [];
  const quarterly: Pick[] = [];
  const direct = new Set<number>();
  for (const c of candidates) {
    const kind = durationKind(c.endDay - (c.startDay as number) + 1);
    if (kind === "annual") annual.push(yearPick(c));
    if (kind === "quarter") {
      quarterly.push(quarterPick(c));
      direct.add(periodKey(c.startDay, c.endDay));
    }
  }
  if (item.additive) quarterly.push(...deriveQuarters(candidates, direct));
  return [annual, quarterly];
}

/** The fiscal year an instant closes: the year whose end it falls on, or (cover-page values) shortly follows. */
function fiscalYearOfInstant(candidate: Candidate, fiscalYearEnds: number[]): number | undefined {
  let low = 0;
  let high = fiscalYearEnds.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((fiscalYearEnds[mid] as number) <= candidate.endDay) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  if (found < 0) return undefined;
  const yearEnd = fiscalYearEnds[found] as number;
  if (yearEnd === candidate.endDay) return yearEnd;
  const annualForm = ANNUAL_FORMS.test(candidate.fact.form ?? "");
  return annualForm && candidate.endDay - yearEnd <= COVER_DATE_DAYS ? yearEnd : undefined;
}

function pickInstants(candidates: Candidate[], fiscalYears: Map<number, number>): Pick[][] {
  const ends = [...fiscalYears.keys()].sort((a, b) => a - b);
  const annual: Pick[] = [];
  const quarterly: Pick[] = [];
  for (const c of candidates) {
    quarterly.push(quarterPick(c));
    if (ends.length === 0) {
      if (ANNUAL_FORMS.test(c.fact.form ?? "")) annual.push(yearPick(c));
      continue;
    }
    const yearEnd = fiscalYearOfInstant(c, ends);
    if (yearEnd === undefined) continue;
    const year = fiscalYears.get(yearEnd) as number;
    // labelEndDay is the year end itself, so the value at the year end beats a cover-page value dated after it.
    annual.push({
      label: `CY${year}`,
      labelIndex: year,
      labelEndDay: yearEnd,
      candidate: c,
      value: c.fact.val,
      startDay: null,
      endDay: c.endDay,
      derived: false,
    });
  }
  return [annual, quarterly];
}

function toMap(picks: Pick[]): Map<number, Pick> {
  const map = new Map<number, Pick>();
  for (const pick of picks) addPick(map, pick);
  return map;
}

function entryOf(pick: Pick): PeriodEntry {
  const fact = pick.candidate.fact;
  return {
    period: pick.label,
    start: pick.startDay === null ? null : pick.derived ? dateOfDay(pick.startDay) : (fact.start as string),
    end: pick.derived ? dateOfDay(pick.endDay) : fact.end,
    value: pick.value,
    form: fact.form ?? "",
    filed: fact.filed ?? "",
    accn: fact.accn ?? "",
    tag: pick.candidate.tag,
    derived: pick.derived,
  };
}

function highlightOf(item: LineItem, unit: string, pick: Pick): FinancialHighlight {
  const fact = pick.candidate.fact;
  return {
    tag: pick.candidate.tag,
    taxonomy: pick.candidate.taxonomy,
    label: pick.candidate.conceptLabel,
    unit,
    value: Math.round(pick.value),
    period: {
      calendar: pick.label,
      start: pick.startDay === null ? null : dateOfDay(pick.startDay),
      end: dateOfDay(pick.endDay),
      instant: item.period === "instant",
    },
    end: dateOfDay(pick.endDay),
    filed: fact.filed ?? "",
    form: fact.form ?? "",
    fy: typeof fact.fy === "number" ? fact.fy : null,
    fp: typeof fact.fp === "string" ? fact.fp : null,
  };
}

function byPeriodOrder(a: Pick, b: Pick): number {
  return a.endDay - b.endDay;
}

/** Derives every standard line item from one companyfacts document. */
export function deriveFinancials(doc: CompanyFactsDocument): DerivedFinancials {
  const facts = doc.facts ?? {};
  const picks: ItemPicks[] = [];
  /** Fiscal year end day → the calendar year its annual period is labelled with. */
  const fiscalYears = new Map<number, number>();

  const gathered = LINE_ITEMS.map((item) => ({ item, found: gatherCandidates(item, facts) }));
  // Durations first: their annual periods give the fiscal year ends that annual balances are read at.
  for (const { item, found } of gathered) {
    if (!found || item.period !== "duration") continue;
    const [annual, quarterly] = pickDurations(item, dedupeByPeriod(found.candidates)) as [Pick[], Pick[]];
    const entry: ItemPicks = {
      item,
      unit: found.unit,
      tagOrder: found.tagOrder,
      annual: toMap(annual),
      quarterly: toMap(quarterly),
    };
    for (const pick of entry.annual.values())
      if (!fiscalYears.has(pick.endDay)) fiscalYears.set(pick.endDay, pick.labelIndex);
    picks.push(entry);
  }
  for (const { item, found } of gathered) {
    if (!found || item.period !== "instant") continue;
    const [annual, quarterly] = pickInstants(dedupeByPeriod(found.candidates), fiscalYears) as [
      Pick[],
      Pick[],
    ];
    picks.push({
      item,
      unit: found.unit,
      tagOrder: found.tagOrder,
      annual: toMap(annual),
      quarterly: toMap(quarterly),
    });
  }

  let lastYear = Number.NEGATIVE_INFINITY;
  let lastQuarter = Number.NEGATIVE_INFINITY;
  for (const p of picks) {
    for (const year of p.annual.keys()) if (year > lastYear) lastYear = year;
    for (const quarter of p.quarterly.keys()) if (quarter > lastQuarter) lastQuarter = quarter;
  }

  const result: DerivedFinancials = {
    cik: doc.cik === undefined ? "" : String(doc.cik).padStart(10, "0"),
    entityName: typeof doc.entityName === "string" ? doc.entityName : "",
    facts: {},
    latestPeriodEnd: {},
    availableTags: [],
    highlights: [],
  };
  const order = new Map(LINE_ITEMS.map((item, i) => [item.name, i]));
  picks.sort((a, b) => (order.get(a.item.name) ?? 0) - (order.get(b.item.name) ?? 0));

  for (const p of picks) {
    const allAnnual = [...p.annual.values()].sort(byPeriodOrder);
    const allQuarterly = [...p.quarterly.values()].sort(byPeriodOrder);
    if (allAnnual.length === 0 && allQuarterly.length === 0) continue;
    const latest = Math.max(allAnnual.at(-1)?.endDay ?? -Infinity, allQuarterly.at(-1)?.endDay ?? -Infinity);
    result.latestPeriodEnd[p.item.name] = dateOfDay(latest);
    result.availableTags.push(p.item.name);

    const annual = allAnnual.filter((pick) => pick.labelIndex > lastYear - ANNUAL_PERIODS);
    const quarterly = allQuarterly.filter((pick) => pick.labelIndex > lastQuarter - QUARTERLY_PERIODS);
    const newest = [...annual, ...quarterly].sort(byPeriodOrder).at(-1);
    if (newest) {
      result.facts[p.item.name] = {
        taxonomy: newest.candidate.taxonomy,
        label: p.item.label,
        unit: p.unit,
        xbrlTags: p.tagOrder,
        annual: annual.map(entryOf),
        quarterly: quarterly.map(entryOf),
      };
    }
    const latestAnnual = allAnnual.at(-1);
    if (HIGHLIGHT_ITEMS.includes(p.item.name) && latestAnnual)
      result.highlights.push(highlightOf(p.item, p.unit, latestAnnual));
  }
  return result;
}
