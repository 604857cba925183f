// GET /v1/registry/npm: the package card of one npm package (latest or a given version or dist-tag), from the
// registry's abbreviated packument (versions, dist-tags), the version's own document (licence, repository …),
// the full packument's times (waited for briefly: it can be tens of MB) and the download-counts API. A package
// not cached is fetched live inside the paid call, within CARD_BUDGET_MS; if the registry cannot answer and
// nothing is cached: 503, nothing charged.
import { z } from "zod";
import { type ErrorOutcome, notFound, ok, product, upstreamUnavailable } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import type { LiveCacheResult } from "../../upstream/live-cache.ts";
import { lookupDownloads, lookupFullFacts, lookupManifest, lookupPackument } from "./lookup.ts";
import { NpmCardQuery, type VersionSpec } from "./names.ts";
import type {
  FullPackumentFacts,
  StoredManifest,
  StoredMissing,
  StoredPackage,
  StoredPackument,
  StoredVersion,
  WeeklyDownloads,
} from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { downloadsUrl, manifestUrl, NPM_SOURCE, NPM_TERMS, packumentUrl } from "./upstream.ts";

const UNAVAILABLE_RETRY_SEC = 60;
/** The longest a buyer waits for the documents of a card not cached (the shared live-fetch bound is 8 s). */
export const CARD_BUDGET_MS = 7000;
/** The abbreviated packument and the downloads: most of the budget, leaving time for the version document. */
const PACKUMENT_WAIT_MS = 5000;
/** The full packument is waited for this long only; a slower one (tens of MB) fills the cache for next time. */
const FULL_PACKUMENT_WAIT_MS = 2500;

const Timestamp = z.iso.datetime({ offset: true });
const StringMap = z.record(z.string(), z.string());

const LicenceSchema = z
  .object({
    name: z.string().describe("The terms or licence the upstream publishes the data under"),
    url: z.url().describe("Where they are published"),
    attribution: z.string().describe("The credit to give"),
  })
  .describe("The upstream's terms, kept with every answer");

export const NpmCardAnswer = z.object({
  ok: z.literal(true),
  name: z.string().describe("Package name as the registry spells it"),
  version: z.string().describe("The version this card describes"),
  requested: z
    .string()
    .describe("What was asked for: the version or dist-tag given, or `latest` when none was given"),
  latestVersion: z.string().nullable().describe("The version the `latest` dist-tag points to"),
  description: z.string().nullable(),
  license: z
    .string()
    .nullable()
    .describe("SPDX licence expression of this version as published (null: none declared)"),
  homepage: z.string().nullable(),
  repository: z
    .object({
      type: z.string().nullable().describe("Usually git"),
      url: z.string().describe("As published, e.g. git+https://github.com/…"),
      directory: z.string().nullable().describe("Folder of the package inside a monorepo"),
    })
    .nullable(),
  maintainersCount: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe(
      "Maintainers listed in this version's document (the accounts that could publish it then), else in the " +
        "full packument; null when neither was at hand",
    ),
  distTags: StringMap.describe("Every dist-tag and the version it points to"),
  versionsCount: z.number().int().nonnegative().describe("Published versions of the package"),
  deprecated: z
    .string()
    .nullable()
    .describe("The deprecation message of this version; null when not deprecated"),
  publishedAt: Timestamp.nullable().describe(
    "When this version was published (from the full packument; null while publishTimesPending)",
  ),
  createdAt: Timestamp.nullable().describe(
    "When the package was first published (from the full packument; null while publishTimesPending)",
  ),
  modifiedAt: Timestamp.nullable().describe("Last change of the package in the registry"),
  publishTimesPending: z
    .boolean()
    .describe(
      "True when the full packument, the only registry document with publish times (up to tens of MB), had " +
        "not arrived within the wait: publishedAt and createdAt are null, and a later call has them",
    ),
  dependencies: StringMap.describe("Runtime dependencies of this version: name → semver range"),
  dependenciesCount: z.number().int().nonnegative(),
  peerDependencies: StringMap,
  optionalDependencies: StringMap,
  engines: StringMap.describe("Declared engines, e.g. node → >= 18"),
  hasInstallScript: z.boolean().describe("The version runs a preinstall, install or postinstall script"),
  dist: z.object({
    tarball: z.string().nullable().describe("URL of the published tarball"),
    integrity: z.string().nullable().describe("Subresource-integrity hash of the tarball (sha512-…)"),
    shasum: z.string().nullable().describe("SHA-1 of the tarball, hex (legacy)"),
    fileCount: z.number().int().nonnegative().nullable(),
    unpackedSizeBytes: z.number().int().nonnegative().nullable(),
    signatures: z.number().int().nonnegative().describe("Registry signatures on the tarball"),
    provenance: z.boolean().describe("The version carries provenance attestations"),
  }),
  weeklyDownloads: z
    .object({
      downloads: z.number().int().nonnegative().describe("Downloads of all versions over the 7 days"),
      start: z.iso.date().describe("First day counted (UTC)"),
      end: z.iso.date().describe("Last day counted (UTC)"),
      fetchedAt: Timestamp,
    })
    .nullable()
    .describe(
      "Last week's downloads; null when the download-counts API has no count or could not be reached",
    ),
  sourceUrl: z.url().describe("The packument URL (asked for in its abbreviated form)"),
  sources: z.array(z.url()).describe("Every upstream URL this answer was built from"),
  fetchedAt: Timestamp.describe("When the packument was fetched from the registry"),
  licence: LicenceSchema,
  notice: z.string().describe("Attribution; says so when the answer is a recorded sample"),
});

type NpmCardAnswerBody = z.infer<typeof NpmCardAnswer>;

const SAMPLE_PREFIX =
  "RECORDED SAMPLE, NOT LIVE DATA: this card comes from a recorded sample of the npm registry's documented " +
  "response shapes (UPSTREAMS=replay); its values are placeholders. ";

function npmNotice(recordedSample: boolean): string {
  const base = `${NPM_TERMS.attribution}. ${NPM_SOURCE.notice}`;
  return recordedSample ? SAMPLE_PREFIX + base : base;
}

export function resolveVersion(
  pkg: StoredPackage,
  spec: VersionSpec | undefined,
): { version: StoredVersion; requested: string } | { error: string } {
  const requested = spec?.value ?? "latest";
  const target = spec?.kind === "version" ? spec.value : pkg.distTags[requested];
  if (!target) {
    const tags = Object.keys(pkg.distTags).join(", ") || "none";
    return { error: `${pkg.name} has no dist-tag "${requested}" (its dist-tags: ${tags}).` };
  }
  const version = pkg.versions[target];
  if (!version) {
    return { error: `${pkg.name}@${target} is not published (it may have been unpublished).` };
  }
  return { version, requested };
}

type Doc = Pick<CachedDocument<unknown>, "fetchedAt" | "recordedSample">;

/** The version's facts: its own document where it could be had, else the full packument's account of it. */
interface VersionDetails {
  version: StoredVersion;
  maintainersCount: number | null;
  url: string;
  doc: Doc;
}

export function cardOf(
  pkg: StoredPackage,
  resolved: { version: StoredVersion; requested: string },
  details: VersionDetails,
  full:
    | { url: string; doc: Pick<CachedDocument<FullPackumentFacts>, "body" | "fetchedAt" | "recordedSample"> }
    | undefined,
  packument: { url: string; doc: Doc },
  downloads: { url: string; doc: CachedDocument<WeeklyDownloads | null> } | undefined,
): NpmCardAnswerBody {
  const v = details.version;
  const facts = full?.doc.body;
  const counted = downloads?.doc.body ?? null;
  const sources = [
    packument.url,
    details.url,
    ...(full ? [full.url] : []),
    ...(counted && downloads ? [downloads.url] : []),
  ];
  return {
    ok: true,
    name: pkg.name,
    version: resolved.version.version,
    requested: resolved.requested,
    latestVersion: pkg.distTags.latest ?? null,
    description: v.description ?? pkg.description,
    license: v.license,
    homepage: v.homepage,
    repository: v.repository,
    maintainersCount: details.maintainersCount ?? facts?.maintainersCount ?? null,
    distTags: pkg.distTags,
    versionsCount: Object.keys(pkg.versions).length,
    deprecated: v.deprecated,
    publishedAt: facts?.versions[resolved.version.version]?.publishedAt ?? null,
    createdAt: facts?.created ?? null,
    modifiedAt: pkg.modifiedAt ?? facts?.modified ?? null,
    publishTimesPending: facts === undefined,
    dependencies: v.dependencies,
    dependenciesCount: Object.keys(v.dependencies).length,
    peerDependencies: v.peerDependencies,
    optionalDependencies: v.optionalDependencies,
    engines: v.engines,
    hasInstallScript: v.hasInstallScript,
    dist: v.dist,
    weeklyDownloads: counted && downloads ? { ...counted, fetchedAt: downloads.doc.fetchedAt } : null,
    sourceUrl: packument.url,
    sources: [...new Set(sources)],
    fetchedAt: packument.doc.fetchedAt,
    licence: NPM_TERMS,
    notice: npmNotice(
      [packument.doc, details.doc, full?.doc, downloads?.doc].some((d) => d?.recordedSample === true),
    ),
  };
}

const isFull = (
  result: LiveCacheResult<FullPackumentFacts | StoredMissing>,
): result is { ok: true; doc: CachedDocument<FullPackumentFacts>; from: "cache" | "live" | "stale" } =>
  result.ok && result.doc.body.kind === "full";

/**
 * The version's own document; when it cannot be had (the registry refusing the version route, or too slow),
 * the full packument's account of the version, if it arrived; else undefined.
 */
export function versionDetails(
  resolved: { version: StoredVersion },
  manifest: LiveCacheResult<StoredManifest | StoredMissing>,
  manifestSource: string,
  full: { url: string; doc: CachedDocument<FullPackumentFacts> } | undefined,
): VersionDetails | undefined {
  if (manifest.ok && manifest.doc.body.kind === "manifest") {
    const body = manifest.doc.body as StoredManifest;
    return {
      version: body.version,
      maintainersCount: body.maintainersCount,
      url: manifestSource,
      doc: manifest.doc,
    };
  }
  const facts = full?.doc.body.versions[resolved.version.version];
  if (!full || !facts) return undefined;
  // The abbreviated packument's entry (dependencies, dist, engines …) with the full packument's facts.
  const { publishedAt: _time, ...rest } = facts;
  return {
    version: { ...resolved.version, ...rest },
    maintainersCount: full.doc.body.maintainersCount,
    url: full.url,
    doc: full.doc,
  };
}

function unavailableOutcome(name: string): ErrorOutcome {
  return upstreamUnavailable(
    `The npm registry did not answer for ${name} and it is not cached; nothing was charged. Try again in about ${UNAVAILABLE_RETRY_SEC} seconds.`,
    { retryAfterSec: UNAVAILABLE_RETRY_SEC },
  );
}

function packageMissing(doc: StoredPackument): ErrorOutcome | undefined {
  if (doc.kind === "missing") {
    return notFound(`There is no package ${doc.name} in the npm registry (checked ${doc.checkedAt}).`, {
      name: doc.name,
      checkedAt: doc.checkedAt,
    });
  }
  if (doc.kind === "unpublished") {
    return notFound(
      `${doc.name} was unpublished from the npm registry${doc.unpublishedAt ? ` on ${doc.unpublishedAt}` : ""}.`,
      { name: doc.name, unpublished: true, unpublishedAt: doc.unpublishedAt, formerVersions: doc.versions },
    );
  }
  return undefined;
}

export function npmCard(settings: NpmSettings) {
  return product({
    sku: "registry.npm",
    method: "GET",
    path: "/v1/registry/npm",
    summary:
      "npm package card: version, licence, repository, dependencies, dist-tags, deprecation, downloads",
    description:
      "The card of one npm package, latest version or the version or dist-tag given: description, licence, " +
      "repository, maintainers' count, dependencies, dist-tags, deprecation, publish times, integrity and " +
      "tarball, and last week's downloads. Built from the registry's abbreviated packument and the version's " +
      "own document, so a first lookup stays within seconds for any package; publish times come only in the " +
      "full packument (up to tens of MB), waited for briefly: when it is late they are null with " +
      "publishTimesPending:true and a later call has them. Documents are cached and revalidated with the " +
      `registry's ETag after ${Math.round(settings.packumentTtlMs / 60_000)} minutes. ` +
      "Unknown or unpublished packages and unknown versions are 404, not charged; if the registry cannot be " +
      "reached and nothing is cached, 503, not charged.",
    status: "live",
    tags: ["registry", "npm", "packages"],
    price: "0.01",
    query: NpmCardQuery,
    answer: NpmCardAnswer,
    sample: { name: "express" },
    source: NPM_SOURCE,

    async handle({ query }, ctx) {
      const started = Date.now();
      const name = query.name;
      // Started first and waited for last, briefly: the one document that can be tens of MB.
      const fullLookup = lookupFullFacts(ctx, settings, name, FULL_PACKUMENT_WAIT_MS);
      const [packument, downloads] = await Promise.all([
        lookupPackument(ctx, settings, name, PACKUMENT_WAIT_MS),
        lookupDownloads(ctx, name, PACKUMENT_WAIT_MS),
      ]);
      if (!packument.ok) {
        ctx.log.warn({ name, err: String(packument.error) }, "npm packument fetch failed");
        return unavailableOutcome(name);
      }
      const missing = packageMissing(packument.doc.body);
      if (missing) return missing;
      const pkg = packument.doc.body as StoredPackage;
      const resolved = resolveVersion(pkg, query.version);
      if ("error" in resolved) {
        return notFound(resolved.error, { name: pkg.name, distTags: pkg.distTags });
      }
      const version = resolved.version.version;
      const left = Math.max(1000, CARD_BUDGET_MS - (Date.now() - started));
      const [manifest, fullResult] = await Promise.all([
        lookupManifest(ctx, settings, name, version, left),
        fullLookup,
      ]);
      const full = isFull(fullResult) ? { url: packumentUrl(ctx, name), doc: fullResult.doc } : undefined;
      const details = versionDetails(resolved, manifest, manifestUrl(ctx, name, version), full);
      if (!details) {
        ctx.log.warn({ name, version }, "npm version document not had in time");
        return unavailableOutcome(name);
      }
      return ok(
        cardOf(
          pkg,
          resolved,
          details,
          full,
          { url: packumentUrl(ctx, name), doc: packument.doc },
          downloads.ok ? { url: downloadsUrl(ctx, name), doc: downloads.doc } : undefined,
        ),
      );
    },
  });
}
