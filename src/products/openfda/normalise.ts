// openFDA label search results into our label card: stable names, arrays for lists, null for a section the
// label does not have, section texts joined and bounded.
export class LabelPageError extends Error {}

/** Longest text kept per section; full labels run to tens of kilobytes (the DailyMed link has all of it). */
export const SECTION_MAX_CHARS = 20_000;

export interface LabelCard {
  setId: string;
  labelId: string | null;
  version: string | null;
  /** effective_time as YYYY-MM-DD. */
  effectiveDate: string | null;
  brandNames: string[];
  genericNames: string[];
  manufacturers: string[];
  routes: string[];
  productTypes: string[];
  substanceNames: string[];
  applicationNumbers: string[];
  productNdcs: string[];
  activeIngredients: string | null;
  boxedWarning: string | null;
  indications: string | null;
  purpose: string | null;
  contraindications: string | null;
  warnings: string | null;
  dosageAndAdministration: string | null;
  /** Section texts cut at SECTION_MAX_CHARS. */
  truncatedSections: string[];
  dailyMedUrl: string;
  apiUrl: string;
}

export interface LabelPage {
  total: number;
  lastUpdated: string | null;
  disclaimer: string | null;
  labels: LabelCard[];
}

type Raw = Record<string, unknown>;

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const v of value) {
    if (typeof v !== "string") continue;
    const t = v.replace(/\s+/g, " ").trim();
    if (t !== "" && !out.includes(t)) out.push(t);
  }
  return out;
}

function section(raw: Raw, truncated: string[], ...keys: string[]): string | null {
  for (const key of keys) {
    const parts = strings(raw[key]);
    if (parts.length === 0) continue;
    const text = parts.join("\n\n");
    if (text.length <= SECTION_MAX_CHARS) return text;
    truncated.push(key);
    return `${text.slice(0, SECTION_MAX_CHARS - 1)}…`;
  }
  return null;
}

function dateOf(effectiveTime: unknown): string | null {
  if (typeof effectiveTime !== "string") return null;
  const m = effectiveTime.match(/^(\d{4})(\d{2})(\d{2})$/);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

function labelCard(raw: Raw): LabelCard | undefined {
  const setId = typeof raw.set_id === "string" ? raw.set_id : null;
  if (!setId || !/^[0-9a-fA-F-]{8,64}$/.test(setId)) return undefined;
  const openfda = (raw.openfda && typeof raw.openfda === "object" ? raw.openfda : {}) as Raw;
  const truncated: string[] = [];
  return {
    setId,
    labelId: typeof raw.id === "string" ? raw.id : null,
    version: typeof raw.version === "string" ? raw.version : null,
    effectiveDate: dateOf(raw.effective_time),
    brandNames: strings(openfda.brand_name),
    genericNames: strings(openfda.generic_name),
    manufacturers: strings(openfda.manufacturer_name),
    routes: strings(openfda.route),
    productTypes: strings(openfda.product_type),
    substanceNames: strings(openfda.substance_name),
    applicationNumbers: strings(openfda.application_number),
    productNdcs: strings(openfda.product_ndc),
    activeIngredients: section(raw, truncated, "active_ingredient"),
    boxedWarning: section(raw, truncated, "boxed_warning"),
    indications: section(raw, truncated, "indications_and_usage"),
    purpose: section(raw, truncated, "purpose"),
    contraindications: section(raw, truncated, "contraindications"),
    warnings: section(raw, truncated, "warnings", "warnings_and_cautions", "warnings_and_precautions"),
    dosageAndAdministration: section(raw, truncated, "dosage_and_administration"),
    truncatedSections: truncated,
    dailyMedUrl: `https://dailymed.nlm.nih.gov/dailymed/lookup.cfm?setid=${setId}`,
    apiUrl: `https://api.fda.gov/drug/label.json?search=set_id:%22${setId}%22`,
  };
}

export function normaliseLabelPage(body: string): LabelPage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new LabelPageError("the label search answer is not JSON");
  }
  const root = parsed as { meta?: Raw; results?: unknown };
  if (!root || typeof root !== "object" || !Array.isArray(root.results)) {
    throw new LabelPageError("the label search answer has no results array");
  }
  const meta = (root.meta ?? {}) as Raw;
  const metaResults = (meta.results ?? {}) as Raw;
  const labels: LabelCard[] = [];
  const seen = new Set<string>();
  for (const raw of root.results) {
    if (!raw || typeof raw !== "object") continue;
    const card = labelCard(raw as Raw);
    // Several labels can share a set id (versions); the first, newest by the search's sort, is kept.
    if (!card || seen.has(card.setId)) continue;
    seen.add(card.setId);
    labels.push(card);
  }
  return {
    total: typeof metaResults.total === "number" ? metaResults.total : labels.length,
    lastUpdated: typeof meta.last_updated === "string" ? meta.last_updated : null,
    disclaimer: typeof meta.disclaimer === "string" ? meta.disclaimer : null,
    labels,
  };
}
