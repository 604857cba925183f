// gesetze-im-internet.de (GII, Federal Ministry of Justice / Federal Office of Justice). There is no search
// API: the daily table of contents https://www.gesetze-im-internet.de/gii-toc.xml (about 6,400 items,
// <items><item><title/><link>http://www.gesetze-im-internet.de/<slug>/xml.zip</link></item>) is our bulk
// index (public clients' tests parse the same shape). It lists only the current
// consolidated law: repealed laws drop out. The per-act xml.zip holds the norms' metadata (jurabk, doknr,
// dates); it is binary and the shared upstream client reads text only, so one law's abbreviation, ELI and
// dates come from NeuRIS instead (neuris.ts).
// No key, no published limit; the TOC is fetched once a day. Licence: statutes are official works without
// copyright (§ 5 UrhG), but GII publishes no explicit licence for its XML: terms unclear (said in answers).
import { XMLParser } from "fast-xml-parser";
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const GII_SPEC: UpstreamSpec = {
  name: "gov-de-gii",
  defaultBaseUrl: "https://www.gesetze-im-internet.de",
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 60_000,
  retries: 2,
};

export const TOC_PATH = "/gii-toc.xml";
export const GII_SITE = "https://www.gesetze-im-internet.de";

export interface TocItem {
  title: string;
  link: string;
}

const parser = new XMLParser({ isArray: (name) => name === "item", parseTagValue: false, trimValues: true });

/** The TOC's items; an answer that is not the TOC (a maintenance page served with 200) is an error. */
export function parseToc(xml: string): TocItem[] {
  let doc: { items?: { item?: Array<{ title?: unknown; link?: unknown }> } };
  try {
    doc = parser.parse(xml);
  } catch {
    throw new Error("gii-toc.xml is not well-formed XML");
  }
  if (!doc.items || !Array.isArray(doc.items.item))
    throw new Error("gii-toc.xml has no <items><item> list (maintenance page?)");
  return doc.items.item.flatMap((item) =>
    typeof item.title === "string" && typeof item.link === "string"
      ? [{ title: item.title, link: item.link }]
      : [],
  );
}

export async function fetchToc(
  client: UpstreamClient,
): Promise<{ items: TocItem[]; url: string; recordedSample: boolean }> {
  const response = await client.get({ path: TOC_PATH, headers: { accept: "application/xml" } });
  if (response.status >= 400)
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  return { items: parseToc(response.body), url: response.url, recordedSample: response.recordedSample };
}
