import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { cardOf, NpmCardAnswer, resolveVersion, versionDetails } from "./card.ts";
import { NPM_RECORDINGS_DIR } from "./index.ts";
import {
  licenceOf,
  normaliseDownloads,
  normaliseFullFacts,
  normaliseManifest,
  normalisePackument,
  PackumentError,
  repositoryOf,
  type StoredPackage,
} from "./normalise.ts";

function recordedBody(file: string): string {
  const recording = JSON.parse(fs.readFileSync(path.join(NPM_RECORDINGS_DIR, file), "utf8"));
  return recording.response.bodyFile
    ? fs.readFileSync(path.join(NPM_RECORDINGS_DIR, recording.response.bodyFile), "utf8")
    : recording.response.body;
}

describe("npm packument normaliser", () => {
  const express = normalisePackument(recordedBody("packument-express.recording.json")) as StoredPackage;

  it("keeps the package facts and every version", () => {
    assert.equal(express.kind, "package");
    assert.equal(express.name, "express");
    assert.deepEqual(express.distTags, { latest: "5.1.0", "latest-4": "4.21.2", next: "5.0.0-beta.3" });
    assert.equal(express.maintainersCount, 3);
    assert.equal(express.createdAt, "2010-12-29T19:38:25.450Z");
    assert.deepEqual(Object.keys(express.versions).sort(), ["4.21.2", "5.0.0-beta.3", "5.1.0"]);
  });

  it("reads a version's dist, provenance, publish time and dependencies", () => {
    const v = express.versions["5.1.0"];
    assert.ok(v);
    assert.equal(v.publishedAt, "2025-03-31T14:00:00.000Z");
    assert.equal(v.dist.unpackedSizeBytes, 197442);
    assert.equal(v.dist.signatures, 1);
    assert.equal(v.dist.provenance, true);
    assert.match(v.dist.integrity ?? "", /^sha512-/);
    assert.equal(v.dependencies.router, "^2.2.0");
    assert.equal(v.engines.node, ">= 18");
    assert.equal(v.deprecated, null);
    assert.equal(v.hasInstallScript, false);
    assert.equal(express.versions["4.21.2"]?.dist.provenance, false);
  });

  it("reads the deprecation message and a string repository", () => {
    const beta = express.versions["5.0.0-beta.3"];
    assert.match(beta?.deprecated ?? "", /use express@5\.1\.0/);
    assert.deepEqual(beta?.repository, { type: null, url: "expressjs/express", directory: null });
  });

  it("reads the legacy licence object and flags install scripts", () => {
    const scoped = normalisePackument(recordedBody("packument-scoped.recording.json")) as StoredPackage;
    const v = scoped.versions["1.0.0"];
    assert.equal(v?.license, "ISC");
    assert.equal(v?.hasInstallScript, true);
    assert.equal(v?.dist.integrity, null);
    assert.equal(v?.dist.fileCount, null);
  });

  it("recognises an unpublished package", () => {
    const doc = normalisePackument(recordedBody("packument-unpublished.recording.json"));
    assert.deepEqual(doc, {
      kind: "unpublished",
      name: "babel-plugin-autocss",
      unpublishedAt: "2022-01-14T12:34:23.941Z",
      versions: ["0.0.1"],
    });
  });

  it("an abbreviated packument (real bytes): versions and dist, no description, modified from its top level", () => {
    const foobar = normalisePackument(recordedBody("abbreviated-foobar.recording.json")) as StoredPackage;
    assert.equal(foobar.kind, "package");
    assert.deepEqual(Object.keys(foobar.versions), ["1.0.0", "1.1.0"]);
    assert.equal(foobar.modifiedAt, "2022-01-26T20:31:13.648Z");
    assert.equal(foobar.createdAt, null);
    assert.equal(foobar.description, null);
    assert.deepEqual(foobar.versions["1.1.0"]?.engines, { node: "~0.4.12" });
    assert.equal(foobar.versions["1.1.0"]?.dist.shasum, "0b76cc4e6c5b8d592db598fb870414c290511df2");
    assert.equal(foobar.versions["1.1.0"]?.license, null, "licences come from the version document");
  });

  it("licence and repository forms", () => {
    assert.equal(licenceOf("MIT"), "MIT");
    assert.equal(licenceOf({ type: "BSD-3-Clause", url: "x" }), "BSD-3-Clause");
    assert.equal(licenceOf([{ type: "MIT" }, { type: "Apache-2.0" }]), "(MIT OR Apache-2.0)");
    assert.equal(licenceOf(undefined), null);
    assert.equal(licenceOf(""), null);
    assert.equal(repositoryOf({ type: "git" }), null);
    assert.deepEqual(repositoryOf({ type: "git", url: "u", directory: "packages/a" }), {
      type: "git",
      url: "u",
      directory: "packages/a",
    });
  });

  it("refuses what is not a packument", () => {
    assert.throws(() => normalisePackument("<html>"), PackumentError);
    assert.throws(() => normalisePackument('{"error":"x"}'), PackumentError);
  });

  it("weekly downloads", () => {
    assert.deepEqual(normaliseDownloads(recordedBody("downloads-express.recording.json")), {
      downloads: 41234567,
      start: "2025-04-01",
      end: "2025-04-07",
    });
    assert.throws(() => normaliseDownloads('{"error":"package x not found"}'), PackumentError);
  });

  it("resolves latest, a dist-tag and an exact version; unknown ones are errors", () => {
    assert.equal((resolveVersion(express, undefined) as { requested: string }).requested, "latest");
    const latest = resolveVersion(express, undefined);
    assert.ok(!("error" in latest) && latest.version.version === "5.1.0");
    const four = resolveVersion(express, { kind: "tag", value: "latest-4" });
    assert.ok(!("error" in four) && four.version.version === "4.21.2");
    const exact = resolveVersion(express, { kind: "version", value: "5.0.0-beta.3" });
    assert.ok(!("error" in exact) && exact.version.version === "5.0.0-beta.3");
    assert.match(
      (resolveVersion(express, { kind: "tag", value: "canary" }) as { error: string }).error,
      /no dist-tag "canary"/,
    );
    assert.match(
      (resolveVersion(express, { kind: "version", value: "9.9.9" }) as { error: string }).error,
      /9\.9\.9 is not published/,
    );
  });

  const doc = { fetchedAt: "2025-04-08T00:00:00.000Z", recordedSample: false };
  const manifest = normaliseManifest(recordedBody("manifest-express-5.1.0.recording.json"));

  it("the card: versions from the packument, facts from the version document, times from the full one", () => {
    const resolved = resolveVersion(express, undefined);
    assert.ok(!("error" in resolved));
    const full = normaliseFullFacts(recordedBody("packument-express.recording.json"));
    const card = NpmCardAnswer.parse(
      cardOf(
        express,
        resolved,
        { version: manifest.version, maintainersCount: null, url: "https://r.example/express/5.1.0", doc },
        { url: "https://r.example/express", doc: { body: full, ...doc } },
        { url: "https://r.example/express", doc },
        undefined,
      ),
    );
    assert.equal(card.dependenciesCount, 7);
    assert.equal(card.license, "MIT");
    assert.equal(card.maintainersCount, 3, "the version document lists none: the full packument's");
    assert.equal(card.publishedAt, full.versions["5.1.0"]?.publishedAt);
    assert.equal(card.publishTimesPending, false);
    assert.equal(card.weeklyDownloads, null);
    assert.deepEqual(card.sources, ["https://r.example/express", "https://r.example/express/5.1.0"]);
    assert.doesNotMatch(card.notice, /RECORDED SAMPLE/);
  });

  it("without the full packument in time: publish times null and pending, everything else answered", () => {
    const resolved = resolveVersion(express, undefined);
    assert.ok(!("error" in resolved));
    const card = NpmCardAnswer.parse(
      cardOf(
        express,
        resolved,
        { version: manifest.version, maintainersCount: null, url: "https://r.example/express/5.1.0", doc },
        undefined,
        { url: "https://r.example/express", doc },
        undefined,
      ),
    );
    assert.equal(card.publishTimesPending, true);
    assert.equal(card.publishedAt, null);
    assert.equal(card.createdAt, null);
    assert.equal(card.maintainersCount, null);
    assert.equal(card.repository?.url, manifest.version.repository?.url);
  });

  it("no version document: the full packument's account of the version; neither: nothing to answer", () => {
    const resolved = resolveVersion(express, { kind: "tag", value: "latest-4" });
    assert.ok(!("error" in resolved));
    const full = normaliseFullFacts(recordedBody("packument-express.recording.json"));
    const refused = { ok: false as const, error: new Error("HTTP 401"), timedOut: false };
    const details = versionDetails(resolved, refused, "https://r.example/express/4.21.2", {
      url: "https://r.example/express",
      doc: { body: full, ...doc, expiresAt: null, etag: null, lastModified: null },
    });
    assert.equal(details?.version.license, full.versions["4.21.2"]?.license);
    assert.equal(details?.url, "https://r.example/express");
    assert.equal(versionDetails(resolved, refused, "https://r.example/express/4.21.2", undefined), undefined);
  });
});

describe("a registry mirror's real answers (captured from this host's registry endpoint)", () => {
  it("a full packument sent for the abbreviated request is read the same; its times parse", () => {
    const pkg = normalisePackument(recordedBody("mirror-tiny-tarball.recording.json")) as StoredPackage;
    assert.deepEqual(pkg.distTags, { latest: "1.0.0" });
    const full = normaliseFullFacts(recordedBody("mirror-tiny-tarball.recording.json"));
    assert.equal(full.versions["1.0.0"]?.publishedAt, "2026-03-21T00:48:47.363000+00:00");
    assert.equal(full.created, null);
    const manifest = normaliseManifest(recordedBody("mirror-tiny-tarball-1.0.0.recording.json"));
    assert.equal(manifest.version.license, "ISC");
    assert.equal(manifest.version.description, "tiny tarball used for health checks");
    assert.equal(manifest.maintainersCount, null);
    const resolved = resolveVersion(pkg, undefined);
    assert.ok(!("error" in resolved));
    const card = NpmCardAnswer.parse(
      cardOf(
        pkg,
        resolved,
        {
          version: manifest.version,
          maintainersCount: null,
          url: "https://m.example/tiny-tarball/1.0.0",
          doc: { fetchedAt: "2026-11-27T06:05:38.000Z", recordedSample: true },
        },
        {
          url: "https://m.example/tiny-tarball",
          doc: { body: full, fetchedAt: "2026-11-27T06:05:38.000Z", recordedSample: true },
        },
        {
          url: "https://m.example/tiny-tarball",
          doc: { fetchedAt: "2026-11-27T06:05:38.000Z", recordedSample: true },
        },
        undefined,
      ),
    );
    assert.equal(card.publishedAt, "2026-03-21T00:48:47.363000+00:00");
    assert.match(card.notice, /^RECORDED SAMPLE/);
  });
});
