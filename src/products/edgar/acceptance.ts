// When EDGAR accepted a filing, from the filing's own header. SEC's submissions JSON publishes
// `acceptanceDateTime` ending in "Z", but the clock behind it is often US Eastern wall-clock time, and not
// consistently (one Form 4, 0000320193-22-000061, reads 18:30:57Z in the issuer's file and 22:30:57Z in the
// reporting owner's). The header of every EDGAR submission (…/Archives/edgar/data/<cik>/<folder>/
// <accession>.hdr.sgml, about 1 KB; the same lines open the complete submission .txt) carries
// `<ACCEPTANCE-DATETIME>YYYYMMDDHHMMSS`, which is Eastern time (EDGAR runs on Eastern time: filings accepted
// after 17:30 get the next business day's filing date). Read it and convert it with the US daylight-saving
// rules of its date. Sources: EDGAR Public Dissemination Service specification (header tags); SEC's "Accessing
// EDGAR Data" page (folder layout, fair access: a declared User-Agent, at most 10 requests a second).
import { type ErrorOutcome, type HandlerContext, upstreamUnavailable } from "../../catalog/product.ts";
import { UpstreamError } from "../../upstream/client.ts";
import { EDGAR_FAMILY } from "./edgar-store.ts";
import { SEC_WWW_UPSTREAM, secBlockedOutcome } from "./upstream.ts";

/** A header fetch inside a paid call waits at most this long; past it the buyer gets a 503, not charged. */
const HEADER_WAIT_MS = 10_000;
export const HEADER_RETRY_AFTER_SEC = 30;

export interface AcceptanceTime {
  /** ISO UTC, "2022-05-06T22:30:57Z"; null when SEC has no header for the filing. */
  utc: string | null;
  /** The header's time with its Eastern offset, "2022-05-06T18:30:57-04:00"; null likewise. */
  eastern: string | null;
  headerUrl: string;
}

export function headerPath(cik: string, accession: string): string {
  return `/Archives/edgar/data/${Number(cik)}/${accession.replace(/-/g, "")}/${accession}.hdr.sgml`;
}

function headerKey(accession: string): string {
  return `acceptance:${accession}`;
}

/** The 14 digits of `<ACCEPTANCE-DATETIME>`, or undefined when the header has none. */
export function acceptanceDigits(header: string): string | undefined {
  return /<ACCEPTANCE-DATETIME>\s*(\d{14})/.exec(header)?.[1];
}

let eastern: Intl.DateTimeFormat | undefined;

/** Minutes east of UTC that New York's clocks showed at this instant (-300 in winter, -240 in summer). */
function easternOffsetMinutes(utcMs: number): number {
  // Made at first use, not at import: a formatter with a time zone pages in ICU's zone data (about 6 MB of
  // resident memory), which a node that reads no acceptance time should not hold.
  eastern ??= new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", timeZoneName: "longOffset" });
  const name = eastern.formatToParts(new Date(utcMs)).find((p) => p.type === "timeZoneName")?.value ?? "";
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return -300;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === "-" ? -minutes : minutes;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** "20220506183057" (Eastern wall clock) → UTC and Eastern ISO strings; undefined when it is not a time. */
export function easternToUtc(digits: string): { utc: string; eastern: string } | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(digits);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  if (
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return undefined;
  // The offset at the guessed instant, then once more at the corrected one (they differ only across a change).
  let offset = easternOffsetMinutes(wall + 5 * 3_600_000);
  const corrected = easternOffsetMinutes(wall - offset * 60_000);
  if (corrected !== offset) offset = corrected;
  const utc = new Date(wall - offset * 60_000).toISOString().replace(".000Z", "Z");
  const eastern = `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}T${digits.slice(8, 10)}:${digits.slice(10, 12)}:${digits.slice(12, 14)}${offsetText(offset)}`;
  return { utc, eastern };
}

/** The filing's acceptance time from the cache, else from its header on SEC (cached for good: it never changes). */
export async function acceptanceTime(
  ctx: HandlerContext,
  userAgent: string,
  cik: string,
  accession: string,
): Promise<AcceptanceTime | ErrorOutcome> {
  const cached = await ctx.store.cache.get<AcceptanceTime>(EDGAR_FAMILY, headerKey(accession));
  if (cached) return cached.body;
  const blocked = await secBlockedOutcome(ctx);
  if (blocked) return blocked;

  const client = ctx.upstreams.client(SEC_WWW_UPSTREAM);
  const path = headerPath(cik, accession);
  const headerUrl = `https://www.sec.gov${path}`;
  let status: number;
  let text = "";
  let recordedSample = false;
  try {
    const response = await Promise.race([
      client.get({
        path,
        headers: { "user-agent": userAgent, accept: "text/plain, */*" },
      }),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no answer within ${HEADER_WAIT_MS / 1000} s`)),
          HEADER_WAIT_MS,
        ).unref(),
      ),
    ]);
    status = response.status;
    text = response.body;
    recordedSample = response.recordedSample;
  } catch (error) {
    if (!(error instanceof UpstreamError) || (error.status !== 404 && error.status !== 403)) {
      ctx.log.warn({ accession, err: (error as Error).message }, "edgar filing header fetch failed");
      return upstreamUnavailable(
        `SEC did not serve the header of filing ${accession}, which holds its acceptance time; nothing was charged. Try again in about ${HEADER_RETRY_AFTER_SEC} seconds.`,
        { retryAfterSec: HEADER_RETRY_AFTER_SEC },
      );
    }
    status = error.status;
  }
  // SEC answers a folder or file that does not exist with 404, and sometimes 403.
  if (status !== 200 && status !== 404 && status !== 403) {
    return upstreamUnavailable(
      `SEC answered HTTP ${status} for the header of filing ${accession}; nothing was charged. Try again in about ${HEADER_RETRY_AFTER_SEC} seconds.`,
      { retryAfterSec: HEADER_RETRY_AFTER_SEC },
    );
  }
  const digits = status === 200 ? acceptanceDigits(text) : undefined;
  const converted = digits ? easternToUtc(digits) : undefined;
  const time: AcceptanceTime = {
    utc: converted?.utc ?? null,
    eastern: converted?.eastern ?? null,
    headerUrl,
  };
  // A missing header is not remembered: a 403 can also be SEC refusing this service for a while.
  if (status === 200) {
    await ctx.store.cache.put(EDGAR_FAMILY, headerKey(accession), {
      body: time,
      fetchedAt: new Date().toISOString(),
      recordedSample,
    });
  }
  return time;
}
