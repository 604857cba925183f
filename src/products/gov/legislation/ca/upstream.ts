// Justice Laws Website XML (Department of Justice Canada), https://laws-lois.justice.gc.ca. No search API:
// the bulk index https://laws-lois.justice.gc.ca/eng/XML/Legis.xml (~5 MB, every consolidated act and
// regulation in English and French, French records linked by `olid`) is our own index "leg-ca"; one act is
// /eng/XML/{UniqueId}.xml (Statute or Regulation root; regulation files may start with a BOM; unknown ids are
// a real 404; no compression, the largest acts are a few MB). Shapes: public clients' fixtures shaped on the live files. No key, no published limit: one request a second.
// Licence: Reproduction of Federal Law Order (SI/97-5): federal law may be reproduced free of charge with due
// diligence for accuracy, not presented as the official version; the GitHub mirror is under OGL–Canada 2.0.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const JUSTICE_LAWS_SPEC: UpstreamSpec = {
  name: "gov-ca-justice-laws",
  defaultBaseUrl: "https://laws-lois.justice.gc.ca",
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 60_000,
  retries: 2,
};

export const LEGIS_PATH = "/eng/XML/Legis.xml";
const actPath = (code: string) => `/eng/XML/${code}.xml`;

interface FetchedXml {
  xml: string;
  url: string;
  recordedSample: boolean;
}

export async function fetchLegis(client: UpstreamClient): Promise<FetchedXml> {
  const response = await client.get({ path: LEGIS_PATH, headers: { accept: "application/xml" } });
  if (response.status >= 400)
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  return { xml: response.body, url: response.url, recordedSample: response.recordedSample };
}

/** One act or regulation; undefined when Justice Laws says it does not exist (404). */
export async function fetchActXml(client: UpstreamClient, code: string): Promise<FetchedXml | undefined> {
  const response = await client.get({ path: actPath(code), headers: { accept: "application/xml" } });
  if (response.status === 404) return undefined;
  if (response.status >= 400)
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  return { xml: response.body, url: response.url, recordedSample: response.recordedSample };
}
