import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { cardOf, resolveVersion } from "./card.ts";
import { NPM_RECORDINGS_DIR } from "./index.ts";
import {
  licenceOf,
  normaliseDownloads,
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
      name: "sample-unpublished-pkg",
      unpublishedAt: "2017-01-13T15:35:55.984Z",
      versions: ["0.0.2", "0.0.3"],
    });
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

  it("the card counts dependencies and leaves downloads null when there is no count", () => {
    const resolved = resolveVersion(express, undefined);
    assert.ok(!("error" in resolved));
    const card = cardOf(
      express,
      resolved,
      {
        url: "https://registry.npmjs.org/express",
        doc: { fetchedAt: "2025-04-08T00:00:00.000Z", recordedSample: false },
      },
      undefined,
    );
    assert.equal(card.dependenciesCount, 7);
    assert.equal(card.weeklyDownloads, null);
    assert.deepEqual(card.sources, ["https://registry.npmjs.org/express"]);
    assert.doesNotMatch(card.notice, /RECORDED SAMPLE/);
  });
});
