// The files of a bulk release, whichever way they came: the members of a downloaded zip (live), or a folder
// of recorded sample files standing for the unpacked archive (UPSTREAMS=replay). Each file is read as a stream.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { listZipEntries, openZipEntry, type ZipEntry } from "./zip-stream.ts";

export interface BulkArchive {
  /** File names, as the archive lists them. */
  names: string[];
  open: (name: string) => Promise<AsyncIterable<Uint8Array>>;
  /** A stable name for what the archive holds (the newest member's date; a content hash for samples). */
  release: string;
  /** The recorded sample files, not the upstream's. */
  recordedSample: boolean;
}

export async function zipArchive(file: string): Promise<BulkArchive> {
  const entries = new Map<string, ZipEntry>();
  for (const entry of await listZipEntries(file)) {
    if (!entry.name.endsWith("/")) entries.set(entry.name, entry);
  }
  const newest = [...entries.values()].reduce((a, e) => Math.max(a, e.modified.getTime()), 0);
  return {
    names: [...entries.keys()],
    release: new Date(newest).toISOString().slice(0, 10),
    recordedSample: false,
    open: async (name) => {
      const entry = entries.get(name);
      if (!entry) throw new Error(`${path.basename(file)} has no member ${name}`);
      return (await openZipEntry(file, entry)) as AsyncIterable<Uint8Array>;
    },
  };
}

export function folderArchive(dir: string): BulkArchive {
  const names = fs
    .readdirSync(dir)
    .filter((n) => fs.statSync(path.join(dir, n)).isFile())
    .sort();
  const hash = createHash("sha256");
  for (const name of names) hash.update(name).update(fs.readFileSync(path.join(dir, name)));
  return {
    names,
    release: `sample-${hash.digest("hex").slice(0, 12)}`,
    recordedSample: true,
    open: async (name) => {
      if (!names.includes(name)) throw new Error(`${dir} has no file ${name}`);
      return fs.createReadStream(path.join(dir, name), { highWaterMark: 64 * 1024 });
    },
  };
}

/** A small member read whole (a code list). */
export async function readWhole(
  archive: BulkArchive,
  name: string,
  maxBytes = 32 * 1024 * 1024,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await archive.open(name)) {
    size += chunk.length;
    if (size > maxBytes) throw new Error(`${name} is larger than ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}
