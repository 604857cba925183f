// OFAC's Sanctions List Service (SLS) exports: SDN.XML (the Specially Designated Nationals list) and
// CONSOLIDATED.XML (the non-SDN consolidated sanctions lists), both in the "sdnList" XML schema.
// URL: https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/<FILE>, no key, no published
// rate limit; the answer is a 302 to a short-lived signed S3 URL (followed, never stored). SDN.XML is about
// 29 MB, CONSOLIDATED.XML far smaller. OFAC publishes irregularly (several times a week); the warmer asks
// conditionally and re-indexes only when Publish_Date (or Record_Count) changes.
// Sources: the SLS export URLs used by public SDN parsers; OFAC FAQ 249 (how the Sanctions List Search scores);
// SDN.XML fixtures of public SDN parsers (element names, see parse.ts). Terms: US government work, public
// domain; OFAC asks that screening results are not presented as legal advice.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import type { ListName } from "./parse.ts";

export const OFAC_UPSTREAM: UpstreamSpec = {
  name: "ofac",
  defaultBaseUrl: "https://sanctionslistservice.ofac.treas.gov",
  maxConcurrent: 1,
  minIntervalMs: 1000,
  // A 29 MB file over a slow path: public parsers report from 11 s to several minutes.
  timeoutMs: 300_000,
  retries: 2,
};

export const LIST_FILES: Record<ListName, string> = {
  SDN: "/api/PublicationPreview/exports/SDN.XML",
  CONSOLIDATED: "/api/PublicationPreview/exports/CONSOLIDATED.XML",
};

export const OFAC_NOTICE =
  "OFAC sanctions lists (SDN and consolidated non-SDN lists), US Department of the Treasury, public domain. " +
  "A score is a potential match for review, never a clearance or a finding; this is not legal advice.";

export const OFAC_SOURCE: SourceInfo = {
  name: "OFAC Sanctions List Service: SDN.XML and CONSOLIDATED.XML",
  url: "https://sanctionslist.ofac.treas.gov/",
  licence: {
    name: "US government work, public domain",
    url: "https://ofac.treasury.gov/",
    attribution: "Office of Foreign Assets Control, US Department of the Treasury",
  },
  notice: OFAC_NOTICE,
};

class OfacUnavailable extends Error {}

interface FetchedList {
  /** null when OFAC answered 304: the stored copy is current. */
  body: string | null;
  url: string;
  etag: string | null;
  lastModified: string | null;
  recordedSample: boolean;
}

export async function fetchList(
  ctx: Pick<HandlerContext, "upstreams">,
  list: ListName,
  previous: { etag: string | null; lastModified: string | null } | undefined,
): Promise<FetchedList> {
  const client = ctx.upstreams.client(OFAC_UPSTREAM);
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({
      path: LIST_FILES[list],
      headers: { accept: "application/xml, text/xml" },
      etag: previous?.etag ?? null,
      lastModified: previous?.lastModified ?? null,
    });
  } catch (error) {
    if (error instanceof UpstreamError) throw new OfacUnavailable(error.message);
    throw error;
  }
  const common = {
    url: response.url,
    etag: response.headers.get("etag"),
    lastModified: response.headers.get("last-modified"),
    recordedSample: response.recordedSample,
  };
  if (response.notModified) return { body: null, ...common };
  if (response.status !== 200) {
    throw new OfacUnavailable(`ofac: HTTP ${response.status} for ${list} from ${response.url}`);
  }
  return { body: response.body, ...common };
}
