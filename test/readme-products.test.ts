// The README's products table is the product declarations: one row per route, with its price and summary.
// When this fails, paste the table it prints into README.md under "## Products".
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { describeProduct } from "../src/catalog/describe.ts";
import { isFree } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { buildFamilies } from "../src/service.ts";

const HEADER = "| Route | Price (USD) | What |";

function expectedTable(): string {
  const config = loadConfig({ UPSTREAMS: "replay", DATA_DIR: "/nonexistent-readme-check" });
  const rows = buildFamilies(config)
    .flatMap((family) => family.products)
    .map((product) => {
      const d = describeProduct(config, product);
      const price = isFree(product)
        ? "free"
        : d.price.dynamic
          ? `dynamic, from ${d.price.priceUsd}`
          : d.price.priceUsd;
      return `| \`${d.method} ${d.path}\` | ${price} | ${d.summary.replaceAll("|", "\\|")} |`;
    });
  return [HEADER, "|---|---|---|", ...rows].join("\n");
}

test("the README's products table lists every route with its price", () => {
  const readme = fs.readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8");
  const start = readme.indexOf(HEADER);
  assert.ok(start >= 0, "README.md has no products table");
  const end = readme.indexOf("\n\n", start);
  const actual = readme.slice(start, end < 0 ? undefined : end).trim();
  const expected = expectedTable();
  assert.equal(actual, expected, `README products table is out of date; expected:\n${expected}`);
});
