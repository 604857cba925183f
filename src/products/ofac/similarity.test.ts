// The string measures against the published worked examples (Winkler 1990; the US National Archives' Soundex).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normaliseName, soundexOf } from "./names.ts";
import { editDistance, editSimilarity, jaro, jaroWinkler, soundex } from "./similarity.ts";

const near = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 0.001, `${actual} is not ${expected}`);

describe("Jaro and Jaro-Winkler", () => {
  it("match the textbook examples", () => {
    near(jaro("martha", "marhta"), 0.944);
    near(jaroWinkler("martha", "marhta"), 0.961);
    near(jaroWinkler("dwayne", "duane"), 0.84);
    near(jaroWinkler("dixon", "dicksonx"), 0.813);
  });

  it("are 1 for equal strings, 0 with nothing in common, and symmetric", () => {
    assert.equal(jaroWinkler("putin", "putin"), 1);
    assert.equal(jaroWinkler("abc", "xyz"), 0);
    assert.equal(jaroWinkler("", "abc"), 0);
    near(jaroWinkler("osama", "usama"), jaroWinkler("usama", "osama"));
  });
});

describe("Soundex", () => {
  it("codes the National Archives' examples", () => {
    assert.equal(soundex("robert"), "R163");
    assert.equal(soundex("rupert"), "R163");
    assert.equal(soundex("rubin"), "R150");
    assert.equal(soundex("ashcraft"), "A261");
    assert.equal(soundex("tymczak"), "T522");
    assert.equal(soundex("pfister"), "P236");
    assert.equal(soundex("honeyman"), "H555");
    assert.equal(soundex("lee"), "L000");
  });

  it("compares first letters that sound alike as equal, but keeps H apart", () => {
    assert.equal(soundexOf("cash"), soundexOf("kash"));
    assert.equal(soundexOf("osama"), soundexOf("usama"));
    assert.notEqual(soundexOf("hassan"), soundexOf("osama"));
    assert.equal(soundexOf("123"), "");
  });
});

describe("edit distance", () => {
  it("counts insertions, deletions and substitutions, and stops past its limit", () => {
    assert.equal(editDistance("kitten", "sitting"), 3);
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(editDistance("kitten", "sitting", 1), 2);
    near(editSimilarity("kitten", "sitting"), 1 - 3 / 7);
    assert.equal(editSimilarity("abcdef", "uvwxyz"), 0, "under 0.5 answers 0");
  });
});

describe("name normalisation", () => {
  it("folds case, accents and punctuation, drops legal forms and keeps initials", () => {
    assert.equal(normaliseName("Nicolás MADURO-Moros").text, "nicolas maduro moros");
    assert.equal(normaliseName("AL QA'IDA").text, "al qaida");
    assert.equal(normaliseName("Sample Trading & Shipping L.L.C.").text, "sample trading shipping");
    assert.equal(normaliseName("A.Q. Khan").text, "a q khan");
    assert.equal(normaliseName("The Company").text, "the company", "a name of noise words only is kept");
    assert.equal(normaliseName("PUTIN, Vladimir").sorted, normaliseName("Vladimir Putin").sorted);
    assert.equal(normaliseName("Straße Ørsted").text, "strasse orsted");
  });
});
