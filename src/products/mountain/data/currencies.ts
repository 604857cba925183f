// The currency a country's places are priced in, when an area record does not name one.
const BY_COUNTRY: Record<string, string> = {
  ad: "EUR",
  ar: "ARS",
  at: "EUR",
  au: "AUD",
  bg: "EUR",
  ca: "CAD",
  ch: "CHF",
  cl: "CLP",
  cn: "CNY",
  cz: "CZK",
  de: "EUR",
  es: "EUR",
  fi: "EUR",
  fr: "EUR",
  gb: "GBP",
  ge: "GEL",
  it: "EUR",
  jp: "JPY",
  kr: "KRW",
  li: "CHF",
  no: "NOK",
  nz: "NZD",
  pl: "PLN",
  ro: "RON",
  se: "SEK",
  si: "EUR",
  sk: "EUR",
  tr: "TRY",
  us: "USD",
};

export function defaultCurrency(country: string): string | undefined {
  return BY_COUNTRY[country];
}
