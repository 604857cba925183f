// When the ECB publishes its euro reference rates: around 16:00 CET (Frankfurt time, CEST in summer) on TARGET
// business days, i.e. every weekday except the TARGET holidays (New Year's Day, Good Friday, Easter Monday,
// 1 May, 25 and 26 December). The warmer refreshes a few minutes after each publication. Pure.

/** Frankfurt wall-clock time of the refresh: publication at about 16:00, plus a margin. */
const REFRESH_LOCAL_HOUR = 16;
const REFRESH_LOCAL_MINUTE = 10;
const DAY_MS = 86_400_000;

/** Easter Sunday of `year` (Gregorian; the anonymous algorithm of Meeus/Jones/Butcher), as YYYY-MM-DD. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function isTargetHoliday(day: string): boolean {
  const monthDay = day.slice(5);
  if (["01-01", "05-01", "12-25", "12-26"].includes(monthDay)) return true;
  const easter = easterSunday(Number(day.slice(0, 4)));
  return day === addDays(easter, -2) || day === addDays(easter, 1);
}

/** A TARGET business day (YYYY-MM-DD): a weekday that is not a TARGET holiday. */
export function isTargetDay(day: string): boolean {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !isTargetHoliday(day);
}

let frankfurtOffset: Intl.DateTimeFormat | undefined;

/** Frankfurt's offset from UTC at `instant`, in minutes (60 in winter, 120 in summer). */
function frankfurtOffsetMinutes(instant: number): number {
  // Made at first use, not at import: a formatter with a time zone pages in ICU's zone data (about 6 MB of
  // resident memory), which a node that never computes a refresh time should not hold.
  frankfurtOffset ??= new Intl.DateTimeFormat("en-US", {
    timeZone: "Europe/Berlin",
    timeZoneName: "shortOffset",
  });
  const name = frankfurtOffset.formatToParts(instant).find((p) => p.type === "timeZoneName")?.value ?? "";
  const match = name.match(/GMT([+-])(\d{1,2})(?::(\d{2}))?/);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === "-" ? -minutes : minutes;
}

/** The refresh instant of TARGET day `day`: REFRESH_LOCAL_HOUR:MINUTE Frankfurt time, in UTC. */
export function refreshAt(day: string): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const asUtc = Date.UTC(y, m - 1, d, REFRESH_LOCAL_HOUR, REFRESH_LOCAL_MINUTE);
  // Clocks change at 01:00 UTC, so the offset at noon UTC holds all afternoon.
  return new Date(asUtc - frankfurtOffsetMinutes(Date.UTC(y, m - 1, d, 12)) * 60_000);
}

/** The first refresh strictly after `after`. */
export function nextEcbRefreshAt(after: Date): Date {
  for (let day = after.toISOString().slice(0, 10), i = 0; i < 20; i++, day = addDays(day, 1)) {
    if (isTargetDay(day) && refreshAt(day).getTime() > after.getTime()) return refreshAt(day);
  }
  throw new Error(`no TARGET day within 20 days of ${after.toISOString()}`);
}

/** The latest TARGET day whose refresh time has passed at `now`: the rates the cache should hold. */
export function latestPublicationDay(now: Date): string {
  for (let day = now.toISOString().slice(0, 10), i = 0; i < 20; i++, day = addDays(day, -1)) {
    if (isTargetDay(day) && refreshAt(day).getTime() <= now.getTime()) return day;
  }
  throw new Error(`no TARGET day within 20 days before ${now.toISOString()}`);
}
