// A SPARQL SELECT over GET (Fedlex for ch, Cellar for eu), answered as SPARQL JSON results. Anything else
// (an HTML maintenance page served with 200, a timeout notice) is an error, so it never reaches a normaliser.
import type { UpstreamClient } from "../../../upstream/client.ts";
import { UpstreamError } from "../../../upstream/client.ts";

export const SPARQL_JSON = "application/sparql-results+json";

export interface SparqlBinding {
  [name: string]: { type: string; value: string; datatype?: string; "xml:lang"?: string } | undefined;
}

export interface SparqlAnswer {
  bindings: SparqlBinding[];
  url: string;
  recordedSample: boolean;
}

/** `params` holds the query (`query`) and whatever else the endpoint wants in the URL. */
export async function sparqlSelect(
  client: UpstreamClient,
  path: string,
  params: { query: string } & Record<string, string>,
): Promise<SparqlAnswer> {
  const response = await client.get({ path, query: params, headers: { accept: SPARQL_JSON } });
  if (response.status >= 400) {
    throw new UpstreamError(client.name, `HTTP ${response.status} from the SPARQL endpoint`, response.status);
  }
  let json: { results?: { bindings?: unknown } };
  try {
    json = JSON.parse(response.body);
  } catch {
    throw new UpstreamError(
      client.name,
      "the SPARQL endpoint answered something else than JSON (maintenance page?)",
    );
  }
  if (!Array.isArray(json.results?.bindings)) {
    throw new UpstreamError(client.name, "the SPARQL answer has no results.bindings");
  }
  return {
    bindings: json.results.bindings as SparqlBinding[],
    url: response.url,
    recordedSample: response.recordedSample,
  };
}
