// GET /v1/registry/npm: the package card of one npm package (latest or a given version or dist-tag), from the
// registry's packument and the download-counts API. A package not cached is fetched live inside the paid
// call (bounded); if the registry cannot answer and nothing is cached: 503, nothing charged.
import { z } from "zod";
import { type ErrorOutcome, notFound, ok, product } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { lookupDownloads, lookupPackument } from "./lookup.ts";
import { NpmCardQuery, type VersionSpec } from "./names.ts";
import type { StoredPackage, StoredPackument, StoredVersion, WeeklyDownloads } from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { downloadsUrl, NPM_SOURCE, NPM_TERMS, packumentUrl } from "./upstream.ts";

export const UNAVAILABLE_RETRY_SEC = 60;

const Timestamp = z.iso.datetime({ offset: true });
const StringMap = z.record(z.string(), z.string());

export const LicenceSchema = z
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
  maintainersCount: z.number().int().nonnegative().describe("Accounts allowed to publish the package"),
  distTags: StringMap.describe("Every dist-tag and the version it points to"),
  versionsCount: z.number().int().nonnegative().describe("Published versions of the package"),
  deprecated: z
    .string()
    .nullable()
    .describe("The deprecation message of this version; null when not deprecated"),
  publishedAt: Timestamp.nullable().describe("When this version was published"),
  createdAt: Timestamp.nullable().describe("When the package was first published"),
  modifiedAt: Timestamp.nullable().describe("Last change of the package in the registry"),
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
  sourceUrl: z.url().describe("The packument URL"),
  sources: z.array(z.url()).describe("Every upstream URL this answer was built from"),
  fetchedAt: Timestamp.describe("When the packument was fetched from the registry"),
  licence: LicenceSchema,
  notice: z.string().describe("Attribution; says so when the answer is a recorded sample"),
});

export type NpmCardAnswerBody = z.infer<typeof NpmCardAnswer>;

const SAMPLE_PREFIX =
  "RECORDED SAMPLE, NOT LIVE DATA: this card comes from a recorded sample of the npm registry's documented " +
  "response shapes (UPSTREAMS=replay); its values are placeholders. ";

export function npmNotice(recordedSample: boolean): string {
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

export function cardOf(
  pkg: StoredPackage,
  resolved: { version: StoredVersion; requested: string },
  packument: { url: string; doc: Pick<CachedDocument<unknown>, "fetchedAt" | "recordedSample"> },
  downloads: { url: string; doc: CachedDocument<WeeklyDownloads | null> } | undefined,
): NpmCardAnswerBody {
  const v = resolved.version;
  const counted = downloads?.doc.body ?? null;
  return {
    ok: true,
    name: pkg.name,
    version: v.version,
    requested: resolved.requested,
    latestVersion: pkg.distTags.latest ?? null,
    description: v.description ?? pkg.description,
    license: v.license,
    homepage: v.homepage,
    repository: v.repository,
    maintainersCount: pkg.maintainersCount,
    distTags: pkg.distTags,
    versionsCount: Object.keys(pkg.versions).length,
    deprecated: v.deprecated,
    publishedAt: v.publishedAt,
    createdAt: pkg.createdAt,
    modifiedAt: pkg.modifiedAt,
    dependencies: v.dependencies,
    dependenciesCount: Object.keys(v.dependencies).length,
    peerDependencies: v.peerDependencies,
    optionalDependencies: v.optionalDependencies,
    engines: v.engines,
    hasInstallScript: v.hasInstallScript,
    dist: v.dist,
    weeklyDownloads: counted && downloads ? { ...counted, fetchedAt: downloads.doc.fetchedAt } : null,
    sourceUrl: packument.url,
    sources: [packument.url, ...(counted && downloads ? [downloads.url] : [])],
    fetchedAt: packument.doc.fetchedAt,
    licence: NPM_TERMS,
    notice: npmNotice(packument.doc.recordedSample || (downloads?.doc.recordedSample ?? false)),
  };
}

export function unavailableOutcome(name: string): ErrorOutcome {
  return {
    status: 503,
    body: {
      error: "upstream_unavailable",
      message: `The npm registry did not answer for ${name} and it is not cached; nothing was charged. Try again in about ${UNAVAILABLE_RETRY_SEC} seconds.`,
      charged: false,
      retryAfterSec: UNAVAILABLE_RETRY_SEC,
    },
  };
}

export function packageMissing(doc: StoredPackument): ErrorOutcome | undefined {
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
      "tarball, and last week's downloads. Packuments are cached and revalidated with the registry's ETag " +
      `after ${Math.round(settings.packumentTtlMs / 60_000)} minutes; a package not cached is fetched live. ` +
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
      const [packument, downloads] = await Promise.all([
        lookupPackument(ctx, settings, query.name),
        lookupDownloads(ctx, query.name),
      ]);
      if (!packument.ok) {
        ctx.log.warn({ name: query.name, err: String(packument.error) }, "npm packument fetch failed");
        return unavailableOutcome(query.name);
      }
      const missing = packageMissing(packument.doc.body);
      if (missing) return missing;
      const pkg = packument.doc.body as StoredPackage;
      const resolved = resolveVersion(pkg, query.version);
      if ("error" in resolved) {
        return notFound(resolved.error, { name: pkg.name, distTags: pkg.distTags });
      }
      return ok(
        cardOf(
          pkg,
          resolved,
          { url: packumentUrl(ctx, query.name), doc: packument.doc },
          downloads.ok ? { url: downloadsUrl(ctx, query.name), doc: downloads.doc } : undefined,
        ),
      );
    },
  });
}
