// Calendar arithmetic for XBRL facts: day numbers, period lengths, and the calendar year or quarter
// (`CY2024`, `CY2024Q3`) a fact belongs to when SEC gave it no frame.

const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function digit(text: string, index: number): number {
  const code = text.charCodeAt(index) - 48;
  return code >= 0 && code <= 9 ? code : Number.NaN;
}

/**
 * Days since 1970-01-01 for a `YYYY-MM-DD` date (UTC); NaN for anything else. Runs once per fact, so it reads
 * the characters directly rather than through Date or a regular expression.
 */
export function dayNumber(date: string): number {
  if (date.length !== 10 || date.charCodeAt(4) !== 45 || date.charCodeAt(7) !== 45) return Number.NaN;
  const year = digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3);
  const month = digit(date, 5) * 10 + digit(date, 6);
  const day = digit(date, 8) * 10 + digit(date, 9);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31)) return Number.NaN;
  return daysFromCivil(year, month, day);
}

export function dateOfDay(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

type DurationKind = "quarter" | "half" | "nineMonths" | "annual" | "other";

/**
 * Classifies a duration by its length in days (`end - start + 1`), with SEC's own tolerance of ±30 days:
 * ~91 a quarter, ~182 a half-year to date, ~273 nine months to date, ~365 a year (52/53-week years give 364/371).
 */
export function durationKind(days: number): DurationKind {
  if (days >= 61 && days <= 121) return "quarter";
  if (days >= 152 && days <= 212) return "half";
  if (days >= 243 && days <= 303) return "nineMonths";
  if (days >= 335 && days <= 395) return "annual";
  return "other";
}

/** A calendar quarter as one integer (year * 4 + quarter - 1), so windows are simple ranges. */
function quarterIndex(year: number, quarter: number): number {
  return year * 4 + quarter - 1;
}

export function quarterLabel(index: number): string {
  return `CY${Math.floor(index / 4)}Q${(index % 4) + 1}`;
}

/** `CY2024Q3` → its index; anything else → undefined. */
export function parseQuarterLabel(label: string): number | undefined {
  const match = /^CY(\d{4})Q([1-4])$/.exec(label);
  return match ? quarterIndex(Number(match[1]), Number(match[2])) : undefined;
}

/** `CY2024` → 2024; anything else → undefined. */
export function parseYearLabel(label: string): number | undefined {
  const match = /^CY(\d{4})$/.exec(label);
  return match ? Number(match[1]) : undefined;
}

/** The calendar year a day number falls in. */
export function yearOfDay(day: number): number {
  let year = 1970 + Math.floor(day / 365.2425);
  if (daysFromCivil(year + 1, 1, 1) <= day) year++;
  else if (daysFromCivil(year, 1, 1) > day) year--;
  return year;
}

/** Day number of the last day of a calendar quarter index. */
export function quarterEndDay(index: number): number {
  const year = Math.floor(index / 4);
  const quarter = index % 4;
  return quarter === 3 ? daysFromCivil(year, 12, 31) : daysFromCivil(year, quarter * 3 + 4, 1) - 1;
}

export function yearEndDay(year: number): number {
  return daysFromCivil(year, 12, 31);
}

/**
 * The calendar quarter whose last day is nearest to `endDay` (ties go to the earlier quarter). This is how
 * SEC frames a fact: a fiscal quarter ending 2024-09-28 is CY2024Q3, an instant dated 2012-01-31 is CY2011Q4.
 */
export function nearestQuarter(endDay: number): number {
  const year = yearOfDay(endDay);
  let best = quarterIndex(year - 1, 4);
  let bestDistance = Math.abs(endDay - quarterEndDay(best));
  for (let quarter = 1; quarter <= 4; quarter++) {
    const index = quarterIndex(year, quarter);
    const distance = Math.abs(endDay - quarterEndDay(index));
    if (distance < bestDistance) {
      best = index;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The calendar year whose last day is nearest to `endDay` (ties go to the earlier year): a fiscal year
 * ending 2024-09-28 is CY2024, one ending 2024-06-30 is CY2023, one ending 2024-02-03 is CY2023.
 */
export function nearestYear(endDay: number): number {
  const year = yearOfDay(endDay);
  return endDay - yearEndDay(year - 1) <= yearEndDay(year) - endDay ? year - 1 : year;
}
