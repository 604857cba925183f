// npm packuments → the compact forms this service caches. The card is built from three registry documents,
// each fetched only for what it alone carries:
// - the abbreviated packument (Accept: application/vnd.npm.install-v1+json; npm/registry
//   docs/responses/package-metadata.md): name, modified, dist-tags and per version dependencies, peer and
//   optional dependencies, engines, deprecated, hasInstallScript, dist. No description, licence, repository,
//   maintainers or times. Hundreds of KB where the full packument is tens of MB.
// - the version document (/<name>/<version>): description, licence, homepage, repository, maintainers of that
//   version (and the same dependencies, dist, deprecated as above).
// - the full packument (/<name>): only for `time` (when each version was published, created, modified), which
//   no smaller document carries. It can be tens of MB (vite: 39 MB), so a buyer waits for it only briefly.
// Every upstream field is treated as optional: `license` may be a string, an object ({type,url}), a
// legacy array or absent; `repository` a string or an object; `deprecated` a message or absent; `time`
// carries `unpublished` for packages whose every version was unpublished.
import { isObject, type JsonObject } from "../../json.ts";

interface StoredRepository {
  type: string | null;
  url: string;
  directory: string | null;
}

interface StoredDist {
  tarball: string | null;
  shasum: string | null;
  integrity: string | null;
  fileCount: number | null;
  unpackedSizeBytes: number | null;
  signatures: number;
  provenance: boolean;
}

export interface StoredVersion {
  version: string;
  publishedAt: string | null;
  description: string | null;
  license: string | null;
  homepage: string | null;
  repository: StoredRepository | null;
  deprecated: string | null;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  engines: Record<string, string>;
  hasInstallScript: boolean;
  dist: StoredDist;
}

export interface StoredPackage {
  kind: "package";
  name: string;
  /** null in the abbreviated packument; each version's own description comes from its version document. */
  description: string | null;
  distTags: Record<string, string>;
  createdAt: string | null;
  modifiedAt: string | null;
  maintainersCount: number;
  versions: Record<string, StoredVersion>;
}

interface StoredUnpublished {
  kind: "unpublished";
  name: string;
  unpublishedAt: string | null;
  /** The versions that were published before. */
  versions: string[];
}

export interface StoredMissing {
  kind: "missing";
  name: string;
  checkedAt: string;
}

export type StoredPackument = StoredPackage | StoredUnpublished | StoredMissing;

export class PackumentError extends Error {}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function stringMap(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === "string") out[key] = v;
  return out;
}

/** SPDX expression when the package gives one; the legacy object and array forms keep their `type`. */
export function licenceOf(value: unknown): string | null {
  if (typeof value === "string") return text(value);
  if (isObject(value)) return text(value.type);
  if (Array.isArray(value)) {
    const types = value.map((v) => (isObject(v) ? text(v.type) : text(v))).filter((t) => t !== null);
    return types.length ? `(${types.join(" OR ")})` : null;
  }
  return null;
}

export function repositoryOf(value: unknown): StoredRepository | null {
  if (typeof value === "string") return text(value) ? { type: null, url: value, directory: null } : null;
  if (!isObject(value)) return null;
  const url = text(value.url);
  if (!url) return null;
  return { type: text(value.type), url, directory: text(value.directory) };
}

function distOf(value: unknown): StoredDist {
  const dist = isObject(value) ? value : {};
  return {
    tarball: text(dist.tarball),
    shasum: text(dist.shasum),
    integrity: text(dist.integrity),
    fileCount: count(dist.fileCount),
    unpackedSizeBytes: count(dist.unpackedSize),
    signatures: Array.isArray(dist.signatures) ? dist.signatures.length : 0,
    provenance: isObject(dist.attestations),
  };
}

function versionOf(version: string, doc: JsonObject, time: JsonObject): StoredVersion {
  const scripts = isObject(doc.scripts) ? doc.scripts : {};
  return {
    version,
    publishedAt: text(time[version]),
    description: text(doc.description),
    license: licenceOf(doc.license ?? doc.licenses),
    homepage: text(doc.homepage),
    repository: repositoryOf(doc.repository),
    // npm marks un-deprecation with an empty string.
    deprecated: text(doc.deprecated),
    dependencies: stringMap(doc.dependencies),
    peerDependencies: stringMap(doc.peerDependencies),
    optionalDependencies: stringMap(doc.optionalDependencies),
    engines: stringMap(doc.engines),
    hasInstallScript:
      doc.hasInstallScript === true || ["preinstall", "install", "postinstall"].some((s) => s in scripts),
    dist: distOf(doc.dist),
  };
}

/** The body as JSON, or a PackumentError naming what was not JSON. */
function parseJson(body: string, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new PackumentError(`${what} is not JSON`);
  }
}

/** Parses a full packument (HTTP 200 body). */
export function normalisePackument(body: string): StoredPackage | StoredUnpublished {
  const doc = parseJson(body, "the packument");
  if (!isObject(doc) || typeof doc.name !== "string") throw new PackumentError("the packument has no name");
  const time = isObject(doc.time) ? doc.time : {};
  const versions = isObject(doc.versions) ? doc.versions : {};
  if (isObject(time.unpublished) || Object.keys(versions).length === 0) {
    const unpublished = isObject(time.unpublished) ? time.unpublished : {};
    return {
      kind: "unpublished",
      name: doc.name,
      unpublishedAt: text(unpublished.time) ?? text(time.modified) ?? text(doc.modified),
      versions: Array.isArray(unpublished.versions)
        ? unpublished.versions.filter((v): v is string => typeof v === "string")
        : [],
    };
  }
  const stored: Record<string, StoredVersion> = {};
  for (const [version, versionDoc] of Object.entries(versions)) {
    if (isObject(versionDoc)) stored[version] = versionOf(version, versionDoc, time);
  }
  return {
    kind: "package",
    name: doc.name,
    description: text(doc.description),
    distTags: stringMap(doc["dist-tags"]),
    createdAt: text(time.created),
    // The abbreviated packument has no `time`, only a top-level `modified`.
    modifiedAt: text(time.modified) ?? text(doc.modified),
    maintainersCount: Array.isArray(doc.maintainers) ? doc.maintainers.length : 0,
    versions: stored,
  };
}

export interface StoredManifest {
  kind: "manifest";
  name: string;
  version: StoredVersion;
  /** Accounts listed in this version's document (the maintainers when it was published); null if not listed. */
  maintainersCount: number | null;
}

/** The document of one version (GET /<name>/<version>, HTTP 200). */
export function normaliseManifest(body: string): StoredManifest {
  const doc = parseJson(body, "the version document");
  if (!isObject(doc) || typeof doc.name !== "string" || typeof doc.version !== "string")
    throw new PackumentError("the version document has no name and version");
  return {
    kind: "manifest",
    name: doc.name,
    version: versionOf(doc.version, doc, {}),
    maintainersCount: Array.isArray(doc.maintainers) ? doc.maintainers.length : null,
  };
}

/** One version as the full packument describes it: its publish time and the facts the card shows. */
interface FullVersionFacts {
  publishedAt: string | null;
  description: string | null;
  license: string | null;
  homepage: string | null;
  repository: StoredRepository | null;
}

/**
 * What the card takes from the full packument: the times only it carries, and each version's description,
 * licence, homepage and repository (used when a version document cannot be had). The rest (readmes, which make
 * most of its size) is dropped as soon as it is parsed.
 */
export interface FullPackumentFacts {
  kind: "full";
  created: string | null;
  modified: string | null;
  maintainersCount: number | null;
  versions: Record<string, FullVersionFacts>;
}

export function normaliseFullFacts(body: string): FullPackumentFacts {
  const doc = parseJson(body, "the packument");
  if (!isObject(doc) || typeof doc.name !== "string") throw new PackumentError("the packument has no name");
  const time = isObject(doc.time) ? doc.time : {};
  const versions: Record<string, FullVersionFacts> = {};
  for (const [version, v] of Object.entries(isObject(doc.versions) ? doc.versions : {})) {
    if (!isObject(v)) continue;
    versions[version] = {
      publishedAt: text(time[version]),
      description: text(v.description),
      license: licenceOf(v.license ?? v.licenses),
      homepage: text(v.homepage),
      repository: repositoryOf(v.repository),
    };
  }
  return {
    kind: "full",
    created: text(time.created),
    modified: text(time.modified),
    maintainersCount: Array.isArray(doc.maintainers) ? doc.maintainers.length : null,
    versions,
  };
}

export interface WeeklyDownloads {
  downloads: number;
  start: string;
  end: string;
}

/** `{"downloads":31623,"start":"…","end":"…","package":"…"}` from /downloads/point/last-week/<pkg>. */
export function normaliseDownloads(body: string): WeeklyDownloads {
  const doc = parseJson(body, "the downloads answer");
  if (!isObject(doc) || count(doc.downloads) === null || !text(doc.start) || !text(doc.end)) {
    throw new PackumentError("the downloads answer has no downloads, start and end");
  }
  return { downloads: doc.downloads as number, start: doc.start as string, end: doc.end as string };
}
