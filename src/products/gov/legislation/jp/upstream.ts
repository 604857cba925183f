// e-Gov 法令API Version 2 (Digital Agency), https://laws.e-gov.go.jp/api/2, OpenAPI lawapi-v2.yaml at
// https://laws.e-gov.go.jp/api/2/swagger-ui/. Shapes from that OpenAPI description and
// public clients' measured notes: GET /laws answers {total_count, count,
// next_offset, laws[{law_info, revision_info, current_revision_info}]}; `law_title` is a partial match on the
// title or abbreviation, `law_id` and `law_num` are partial matches too (we keep the exact one); unknown
// parameters are silently ignored (so we only send documented ones); errors are {code, message}. No key, no
// published limit, no rate-limit headers; clients self-limit to about 5 a second: we send one every 300 ms.
// Licence: 公共データ利用規約 (PDL 1.0), compatible with CC BY 4.0; attribution "出典：e-Gov法令検索".
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const EGOV_SPEC: UpstreamSpec = {
  name: "gov-jp-egov",
  defaultBaseUrl: "https://laws.e-gov.go.jp/api/2",
  maxConcurrent: 1,
  minIntervalMs: 300,
  timeoutMs: 20_000,
  retries: 2,
  maxRetryAfterMs: 20_000,
};

export const LAWS_PATH = "/laws";
const SEARCH_LIMIT = 20;

interface Fetched<T> {
  json: T;
  url: string;
  recordedSample: boolean;
}

async function getLaws<T>(
  client: UpstreamClient,
  query: Record<string, string | number>,
): Promise<Fetched<T>> {
  const response = await client.get({
    path: LAWS_PATH,
    query: { ...query, response_format: "json" },
    headers: { accept: "application/json" },
  });
  if (response.status >= 400) {
    throw new UpstreamError(
      client.name,
      `HTTP ${response.status} from ${response.url}: ${response.body.slice(0, 120)}`,
      response.status,
    );
  }
  try {
    return {
      json: JSON.parse(response.body) as T,
      url: response.url,
      recordedSample: response.recordedSample,
    };
  } catch {
    throw new UpstreamError(
      client.name,
      `not JSON from ${response.url} (maintenance page?)`,
      response.status,
    );
  }
}

export const searchLaws = <T>(client: UpstreamClient, title: string) =>
  getLaws<T>(client, { law_title: title, limit: SEARCH_LIMIT, offset: 0 });

/** A law by its id (15 characters) or its law number (昭和四十年法律第三十四号). */
export const fetchLaw = <T>(client: UpstreamClient, key: { lawId: string } | { lawNum: string }) =>
  getLaws<T>(client, "lawId" in key ? { law_id: key.lawId, limit: 10 } : { law_num: key.lawNum, limit: 10 });
