// The EDGAR family's configuration, read from the environment when the family is built.
import { type Config, ConfigError, envString } from "../../config.ts";
import { normaliseTicker } from "./identifiers.ts";

export interface EdgarSettings {
  /** Declared to SEC on every request: who is asking and how to reach them. */
  userAgent: string;
  /** Companies kept warm, refreshed daily (CIKs are looked up in SEC's ticker file). */
  tickers: string[];
}

export const DEFAULT_TICKERS = [
  "AAPL",
  "MSFT",
  "NVDA",
  "AMZN",
  "GOOGL",
  "META",
  "BRK-B",
  "JPM",
  "V",
  "WMT",
  "PG",
  "JNJ",
];
const MAX_TICKERS = 500;

export function readEdgarSettings(config: Pick<Config, "env" | "operatorName" | "contact">): EdgarSettings {
  const userAgent = envString(config.env, "SEC_USER_AGENT") ?? `${config.operatorName} ${config.contact}`;
  if (!/\S+@\S+\.\S+/.test(userAgent)) {
    throw new ConfigError(
      "SEC_USER_AGENT",
      `must name the operator and a contact e-mail address as SEC requires (e.g. "Acme Data ops@acme.example"), got "${userAgent}"`,
    );
  }
  if (userAgent.length > 200 || /[\r\n]/.test(userAgent))
    throw new ConfigError("SEC_USER_AGENT", "must be one line of at most 200 characters");

  const raw = envString(config.env, "EDGAR_TICKERS");
  let tickers = DEFAULT_TICKERS;
  if (raw !== undefined) {
    const names = raw
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const parsed = names.map((name) => {
      const ticker = normaliseTicker(name);
      if (!ticker)
        throw new ConfigError("EDGAR_TICKERS", `"${name}" is not a ticker symbol such as AAPL or BRK-B`);
      return ticker;
    });
    if (parsed.length === 0)
      throw new ConfigError("EDGAR_TICKERS", "must list at least one ticker, e.g. AAPL,MSFT");
    if (parsed.length > MAX_TICKERS)
      throw new ConfigError("EDGAR_TICKERS", `lists more than ${MAX_TICKERS} tickers`);
    tickers = [...new Set(parsed)];
  }
  return { userAgent, tickers };
}
