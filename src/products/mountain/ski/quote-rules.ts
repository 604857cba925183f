// The quote rules: which one price answers (resort, ticket type, age band, date or season band). Pure.
import { badRequest, type ErrorOutcome, notFound } from "../../../catalog/product.ts";
import { distinct } from "../data/resorts.ts";
import type { PriceView } from "../data/views.ts";

interface QuoteRequest {
  ticketType: string;
  ageBand: string;
  date?: string;
  seasonBand?: string;
}

interface QuoteChoice {
  price: PriceView;
  /** The date the band was chosen by (null when chosen by seasonBand alone). */
  date: string | null;
  selectedBy: "date" | "seasonBand" | "today";
}

function covers(price: PriceView, date: string): boolean {
  return price.bandDates.some((r) => r.from <= date && date <= r.to);
}

function describeBands(
  prices: PriceView[],
): Array<{ season: string; seasonBand: string; bandDates: PriceView["bandDates"] }> {
  const bands = new Map<string, { season: string; seasonBand: string; bandDates: PriceView["bandDates"] }>();
  for (const p of prices)
    bands.set(`${p.season}|${p.seasonBand}`, {
      season: p.season,
      seasonBand: p.seasonBand,
      bandDates: p.bandDates,
    });
  return [...bands.values()];
}

/**
 * Unknown ticket type, age band or season band → 400 listing the allowed values. The date (today when neither
 * date nor seasonBand is given) selects the season band; a seasonBand alone takes the latest season that has it.
 */
export function chooseQuote(
  prices: PriceView[],
  request: QuoteRequest,
  today: string,
): QuoteChoice | ErrorOutcome {
  const ticketTypes = distinct(prices.map((p) => p.ticketType)).sort();
  if (!ticketTypes.includes(request.ticketType))
    return badRequest(
      "ticketType",
      `ticketType: "${request.ticketType}" is not sold here; allowed: ${ticketTypes.join(", ") || "(no prices on file)"}`,
      {
        allowed: ticketTypes,
      },
    );
  const ageBands = distinct(prices.map((p) => p.ageBand)).sort();
  if (!ageBands.includes(request.ageBand))
    return badRequest(
      "ageBand",
      `ageBand: "${request.ageBand}" is not priced here; allowed: ${ageBands.join(", ")}`,
      { allowed: ageBands },
    );
  const seasonBands = distinct(prices.map((p) => p.seasonBand)).sort();
  if (request.seasonBand !== undefined && !seasonBands.includes(request.seasonBand))
    return badRequest(
      "seasonBand",
      `seasonBand: "${request.seasonBand}" is not a season band here; allowed: ${seasonBands.join(", ")}`,
      {
        allowed: seasonBands,
      },
    );

  const candidates = prices.filter(
    (p) => p.ticketType === request.ticketType && p.ageBand === request.ageBand,
  );
  if (candidates.length === 0)
    return notFound(
      `No ${request.ticketType} ticket is priced for age band ${request.ageBand} at this resort.`,
      {
        available: distinct(
          prices.filter((p) => p.ticketType === request.ticketType).map((p) => p.ageBand),
        ).sort(),
      },
    );

  if (request.date === undefined && request.seasonBand !== undefined) {
    const inBand = candidates
      .filter((p) => p.seasonBand === request.seasonBand)
      .sort((a, b) => (a.season < b.season ? 1 : -1));
    const price = inBand[0];
    if (!price)
      return notFound(
        `No ${request.ticketType} ${request.ageBand} price is on file for season band ${request.seasonBand}.`,
        {
          seasonBands: describeBands(candidates),
        },
      );
    return { price, date: null, selectedBy: "seasonBand" };
  }

  const date = request.date ?? today;
  const price = candidates.find((p) => covers(p, date));
  if (!price)
    return notFound(
      `No ${request.ticketType} ${request.ageBand} price covers ${date}${request.date ? "" : " (today; pass date or seasonBand)"}: the date is outside every season band on file.`,
      { seasonBands: describeBands(candidates) },
    );
  if (request.seasonBand !== undefined && price.seasonBand !== request.seasonBand)
    return badRequest(
      "seasonBand",
      `seasonBand: ${date} falls in season band "${price.seasonBand}", not "${request.seasonBand}"; give one of date or seasonBand`,
    );
  return { price, date, selectedBy: request.date ? "date" : "today" };
}
