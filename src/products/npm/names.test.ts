import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NpmCardQuery, npmNameProblem, packumentPath, parseVersionSpec } from "./names.ts";

describe("npm names and versions", () => {
  it("accepts names npm serves, scoped and legacy ones too", () => {
    for (const name of [
      "express",
      "@types/node",
      "lodash.merge",
      "JSONStream",
      "a",
      "left-pad",
      "@babel/core",
      "x~y",
    ]) {
      assert.equal(npmNameProblem(name), undefined, name);
    }
  });

  it("refuses names npm never accepts", () => {
    const cases: Array<[string, RegExp]> = [
      ["", /empty/],
      [".hidden", /dot or an underscore/],
      ["_private", /dot or an underscore/],
      [" express", /spaces/],
      ["node_modules", /does not allow/],
      ["favicon.ico", /does not allow/],
      ["a/b", /slash/],
      ["@scope", /@scope\/name/],
      ["@scope/", /@scope\/name/],
      ["@sc ope/x", /URL-safe/],
      ["@scope/.x", /dot/],
      ["hello world", /URL-safe/],
      ["caf\u00e9", /URL-safe/],
      ["x".repeat(215), /214/],
    ];
    for (const [name, message] of cases) assert.match(npmNameProblem(name) ?? "", message, name);
  });

  it("encodes the scope's slash in the packument path", () => {
    assert.equal(packumentPath("@types/node"), "/@types%2Fnode");
    assert.equal(packumentPath("express"), "/express");
  });

  it("versions: exact semver (a leading v dropped) or a dist-tag; ranges refused", () => {
    assert.deepEqual(parseVersionSpec("4.21.2"), { kind: "version", value: "4.21.2" });
    assert.deepEqual(parseVersionSpec("v1.0.0-rc.1+build.5"), {
      kind: "version",
      value: "1.0.0-rc.1+build.5",
    });
    assert.deepEqual(parseVersionSpec("next"), { kind: "tag", value: "next" });
    assert.deepEqual(parseVersionSpec("latest-4"), { kind: "tag", value: "latest-4" });
    for (const bad of ["^4.0.0", "4.x", "1.2", "01.2.3", ">=1", "", "a b", "-beta"]) {
      assert.ok("error" in parseVersionSpec(bad), bad);
    }
  });

  it("the query schema names the parameter at fault", () => {
    const noName = NpmCardQuery.safeParse({});
    assert.equal(noName.success, false);
    assert.deepEqual(noName.error?.issues[0]?.path, ["name"]);
    const badVersion = NpmCardQuery.safeParse({ name: "express", version: "^4" });
    assert.deepEqual(badVersion.error?.issues[0]?.path, ["version"]);
    assert.deepEqual(NpmCardQuery.parse({ name: "express", version: "5.1.0" }).version, {
      kind: "version",
      value: "5.1.0",
    });
  });
});
