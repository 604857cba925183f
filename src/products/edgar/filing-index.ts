// The directory listing of one filing's folder (…/Archives/edgar/data/<cik>/<accession>/index.json). It
// carries no filing metadata, only the documents; it is the cheap way to learn that an accession exists.

interface FilingDocument {
  name: string;
  type: string | null;
  /** Bytes; SEC gives a string, empty for some entries. */
  size: number | null;
  /** US Eastern local time, as SEC lists it. */
  lastModified: string | null;
}

interface FilingIndex {
  directory: string;
  parent: string | null;
  documents: FilingDocument[];
}

export function normaliseFilingIndex(raw: unknown): FilingIndex {
  const directory = (raw as { directory?: Record<string, unknown> })?.directory;
  if (!directory || typeof directory.name !== "string")
    throw new Error("the filing index has no directory name");
  const items = Array.isArray(directory.item) ? (directory.item as Array<Record<string, unknown>>) : [];
  return {
    directory: directory.name,
    parent: typeof directory["parent-dir"] === "string" ? directory["parent-dir"] : null,
    documents: items
      .filter((item) => typeof item?.name === "string")
      .map((item) => {
        const size = typeof item.size === "string" && /^\d+$/.test(item.size) ? Number(item.size) : null;
        return {
          name: item.name as string,
          type: typeof item.type === "string" ? item.type : null,
          size: typeof item.size === "number" ? item.size : size,
          lastModified: typeof item["last-modified"] === "string" ? item["last-modified"] : null,
        };
      }),
  };
}
