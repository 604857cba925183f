// ECB EXR CSV (format=csvdata) → one series of daily euro reference rates per currency. Pure.
// Columns are found by header name, so the full column set and detail=dataonly's short set both work.
import { parse } from "csv-parse/sync";
import { errorText } from "../../json.ts";

interface ExrObservation {
  /** YYYY-MM-DD, a TARGET business day. */
  date: string;
  /** Units of the currency per 1 euro. */
  rate: number;
}

export interface ExrSeries {
  /** ISO 4217 code of the quoted currency, e.g. USD. */
  currency: string;
  /** The currency's name as the ECB titles it, e.g. "US dollar". */
  title: string;
  /** Sorted by date, one per date. */
  observations: ExrObservation[];
}

const REQUIRED_COLUMNS = [
  "FREQ",
  "CURRENCY",
  "CURRENCY_DENOM",
  "EXR_TYPE",
  "TIME_PERIOD",
  "OBS_VALUE",
] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURRENCY = /^[A-Z]{3}$/;

/** "US dollar/Euro ECB reference exchange rate" or "ECB reference exchange rate, US dollar/Euro, 2.15 pm (C.E.T.)" → "US dollar". */
function currencyNameFromTitle(
  title: string | undefined,
  titleCompl: string | undefined,
): string | undefined {
  const fromTitle = title?.match(/^(.+?)\/Euro\b/)?.[1]?.trim();
  if (fromTitle) return fromTitle;
  return titleCompl?.match(/exchange rate, (.+?)\/Euro\b/)?.[1]?.trim() || undefined;
}

function fallbackCurrencyName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "currency" }).of(code) ?? code;
  } catch {
    return code;
  }
}

function describeStart(text: string): string {
  return JSON.stringify(text.slice(0, 80).replace(/\s+/g, " "));
}

export function normaliseExrCsv(csv: string): ExrSeries[] {
  const text = csv.replace(/^\uFEFF/, "");
  const head = text.trimStart();
  if (head === "") throw new Error("ECB EXR answer is empty; expected CSV with a header row");
  if (head.startsWith("<"))
    throw new Error(`ECB EXR answer is HTML or XML, not CSV: starts ${describeStart(head)}`);
  if (head.startsWith("{") || head.startsWith("[")) {
    throw new Error(`ECB EXR answer is JSON, not CSV: starts ${describeStart(head)}`);
  }

  let rows: string[][];
  try {
    rows = parse(text, { skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (error) {
    throw new Error(`ECB EXR answer is not valid CSV: ${errorText(error)}`);
  }
  const header = rows[0] ?? [];
  const columns = new Map(header.map((name, index) => [name.toUpperCase(), index]));
  const missing = REQUIRED_COLUMNS.filter((name) => !columns.has(name));
  if (missing.length > 0) {
    throw new Error(
      `ECB EXR CSV lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}; header starts ${describeStart(header.join(","))}`,
    );
  }
  const cell = (row: string[], name: string): string | undefined => {
    const index = columns.get(name);
    return index === undefined ? undefined : row[index];
  };

  const byCurrency = new Map<string, { title: string | undefined; rates: Map<string, number> }>();
  for (const row of rows.slice(1)) {
    if (
      cell(row, "FREQ") !== "D" ||
      cell(row, "CURRENCY_DENOM") !== "EUR" ||
      cell(row, "EXR_TYPE") !== "SP00"
    )
      continue;
    const currency = cell(row, "CURRENCY") ?? "";
    const date = cell(row, "TIME_PERIOD") ?? "";
    const raw = cell(row, "OBS_VALUE") ?? "";
    const rate = Number(raw);
    if (!CURRENCY.test(currency) || !DATE.test(date) || raw === "" || !Number.isFinite(rate) || rate <= 0)
      continue;
    let series = byCurrency.get(currency);
    if (!series) {
      series = { title: undefined, rates: new Map() };
      byCurrency.set(currency, series);
    }
    series.title ??= currencyNameFromTitle(cell(row, "TITLE"), cell(row, "TITLE_COMPL"));
    series.rates.set(date, rate);
  }

  return [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, series]) => ({
      currency,
      title: series.title ?? fallbackCurrencyName(currency),
      observations: [...series.rates.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([date, rate]) => ({ date, rate })),
    }));
}
