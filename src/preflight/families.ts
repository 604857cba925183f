// The preflight checks of families whose folders declare them in one line of their index.ts: the cheapest
// request each upstream documents, sent with the family's own credentials and User-Agent.
import type { PreflightCheck } from "../catalog/product.ts";
import type { CourtsSettings } from "../products/courts/settings.ts";
import { courtListenerSpec } from "../products/courts/upstream.ts";
import { SEC_DATA_UPSTREAM, SEC_WWW_UPSTREAM, TICKERS_PATH } from "../products/edgar/upstream.ts";
import type { LlmSettings } from "../products/llm/settings.ts";
import { LLM_UPSTREAM, MODELS_PATH } from "../products/llm/upstream.ts";
import { OVERPASS_UPSTREAM } from "../products/mountain/osm/overpass.ts";
import { optionalKeyCheck, overpassContactCheck } from "./live-requirements.ts";
import { httpProbe, websocketProbe } from "./probe.ts";

/** SEC: Apple's submissions on data.sec.gov and the ticker file on www.sec.gov, with the declared User-Agent. */
export function secPreflight(userAgent: string): PreflightCheck[] {
  const fix = "SEC refuses undeclared agents with 403: set SEC_USER_AGENT to your organisation and e-mail.";
  const headers = { "user-agent": userAgent, accept: "application/json" };
  return [
    httpProbe(SEC_DATA_UPSTREAM, { path: "/submissions/CIK0000320193.json", headers }, { fix }),
    httpProbe(SEC_WWW_UPSTREAM, { path: TICKERS_PATH, headers }, { fix }),
  ];
}

/** CourtListener: the v4 API root (no search spent), with the token when one is set (a bad one is 401). */
export function courtsPreflight(settings: CourtsSettings): PreflightCheck[] {
  return [
    optionalKeyCheck(
      "courtlistener",
      "COURTLISTENER_TOKEN",
      "anonymous callers get 5 searches a minute, 50 an hour and 100 a day per IP (2026 limits)",
    ),
    httpProbe(
      courtListenerSpec(settings),
      {
        path: "/api/rest/v4/",
        headers: {
          accept: "application/json",
          ...(settings.token ? { authorization: `Token ${settings.token}` } : {}),
        },
      },
      { fix: "Check COURTLISTENER_TOKEN (CourtListener answers 401 to an unknown token)." },
    ),
  ];
}

/** The OpenAI-compatible model list: cheap, and refused (401) with a wrong key. */
export function llmPreflight(settings: Pick<LlmSettings, "apiKey">): PreflightCheck[] {
  return [
    httpProbe(
      LLM_UPSTREAM,
      {
        path: MODELS_PATH,
        headers: {
          accept: "application/json",
          ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
        },
      },
      { fix: "Check LLM_API_KEY and LLM_BASE_URL." },
    ),
  ];
}

/** Overpass: the contact rule for the public instance, and its /status page (free slots, no query run). */
export function overpassPreflight(): PreflightCheck[] {
  return [
    overpassContactCheck(OVERPASS_UPSTREAM.defaultBaseUrl),
    httpProbe(
      OVERPASS_UPSTREAM,
      { path: "/status", headers: { accept: "text/plain" } },
      {
        fix: "Check OVERPASS_BASE_URL; the public instance may be busy, your own instance is recommended.",
      },
    ),
  ];
}

/** Binance's combined trade stream: the WebSocket handshake only. */
export function binancePreflight(streamUrl: string): PreflightCheck[] {
  return [
    websocketProbe(
      "binance",
      streamUrl,
      "Check BINANCE_STREAM_URL; binance.com blocks some regions (use data-stream.binance.vision or stream.binance.us).",
    ),
  ];
}
