// NeuRIS, the federal legal information system in its trial phase (DigitalService for the Federal Ministry of
// Justice): https://testphase.rechtsinformationen.bund.de, docs https://docs.rechtsinformationen.bund.de.
// GET /v1/legislation?searchTerm=…&size=… answers a hydra:Collection whose member[].item carries name,
// abbreviation, the ELI (legislationIdentifier), legislationDate, datePublished and, in workExample,
// legislationLegalForce (InForce | NotInForce) (from the docs and the official front end).
// Limit: 600 requests a minute per IP, beyond that 503 (sometimes 429) with Retry-After; we send one every
// 500 ms. Its legislation set is incomplete and the host may change: it only adds the abbreviation, ELI and
// dates to a law GII lists, matched on the exact (folded) title. Licence: not stated in the material we have.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";
import { foldText } from "../../shared/query.ts";

export const NEURIS_SPEC: UpstreamSpec = {
  name: "gov-de-neuris",
  defaultBaseUrl: "https://testphase.rechtsinformationen.bund.de",
  maxConcurrent: 1,
  minIntervalMs: 500,
  timeoutMs: 20_000,
  retries: 1,
  maxRetryAfterMs: 15_000,
};

interface NeurisItem {
  name?: string;
  abbreviation?: string | null;
  legislationIdentifier?: string;
  legislationDate?: string | null;
  datePublished?: string | null;
  workExample?: { legislationLegalForce?: string | null } | null;
}

interface NeurisSearch {
  totalItems?: number;
  member?: Array<{ item?: NeurisItem }>;
}

export interface NeurisMatch {
  abbreviation: string | null;
  eli: string | null;
  adopted: string | null;
  published: string | null;
  inForce: boolean | null;
  url: string;
}

const day = (value: string | null | undefined) =>
  value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : null;

/** The hit whose name is the GII title (case and diacritics folded); none when no name matches exactly. */
export function matchTitle(search: NeurisSearch, title: string, url: string): NeurisMatch | undefined {
  const wanted = foldText(title);
  const item = (search.member ?? []).map((m) => m.item).find((i) => i?.name && foldText(i.name) === wanted);
  if (!item) return undefined;
  const force = item.workExample?.legislationLegalForce;
  return {
    abbreviation: item.abbreviation?.trim() || null,
    eli: item.legislationIdentifier ?? null,
    adopted: day(item.legislationDate),
    published: day(item.datePublished),
    inForce: force === "InForce" ? true : force === "NotInForce" ? false : null,
    url,
  };
}

export async function searchNeuris(
  client: UpstreamClient,
  title: string,
): Promise<{ search: NeurisSearch; url: string; recordedSample: boolean }> {
  const response = await client.get({
    path: "/v1/legislation",
    query: { searchTerm: title, size: 10, pageIndex: 0 },
    headers: { accept: "application/json" },
  });
  if (response.status >= 400)
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  try {
    return {
      search: JSON.parse(response.body) as NeurisSearch,
      url: response.url,
      recordedSample: response.recordedSample,
    };
  } catch {
    throw new UpstreamError(client.name, `not JSON from ${response.url}`, response.status);
  }
}
