// SEC's filer `category` joins categories with HTML line breaks; the answers give a list of plain strings.
// The raw strings below are ones SEC's submissions files carry (seen in public clients' fixtures and notes).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { CompanyAnswer, CompanyQuery, edgarCompany } from "./company.ts";
import { openWarmedContext } from "./harness.test-helper.ts";
import { filerCategories, normaliseIdentity } from "./submissions.ts";

describe("SEC filer categories", () => {
  it("splits SEC's <br>-joined categories into a list and drops the markup", () => {
    const cases: Array<[unknown, string[]]> = [
      ["Large accelerated filer", ["Large accelerated filer"]],
      [
        "Non-accelerated filer<br>Smaller reporting company",
        ["Non-accelerated filer", "Smaller reporting company"],
      ],
      [
        "Non-accelerated filer<br>Smaller reporting company<br>Emerging growth company",
        ["Non-accelerated filer", "Smaller reporting company", "Emerging growth company"],
      ],
      ["<br>Emerging growth company", ["Emerging growth company"]],
      [
        "Large Accelerated<BR/>Well Known Seasoned Issuer",
        ["Large Accelerated", "Well Known Seasoned Issuer"],
      ],
      ["", []],
      [null, []],
      [["Accelerated filer"], ["Accelerated filer"]],
    ];
    for (const [raw, expected] of cases) assert.deepEqual(filerCategories(raw), expected, String(raw));
  });

  it("the identity read from a submissions file carries the list", () => {
    const identity = normaliseIdentity({
      cik: "1",
      name: "Small Co",
      category: "Non-accelerated filer<br>Smaller reporting company",
    });
    assert.deepEqual(identity.category, ["Non-accelerated filer", "Smaller reporting company"]);
  });
});

describe("edgar.company category (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openWarmedContext();
  });
  after(() => ctx.close());

  async function apple() {
    const outcome = await edgarCompany.handle(
      { query: CompanyQuery.parse({ ticker: "AAPL" }), body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 200);
    return CompanyAnswer.parse(outcome.body);
  }

  it("answers a list, also for a profile cached before the list (one HTML string)", async () => {
    assert.deepEqual((await apple()).category, ["Large accelerated filer"]);
    const cached = await ctx.store.cache.get<Record<string, unknown>>("edgar", "company:0000320193");
    assert.ok(cached);
    await ctx.store.cache.put("edgar", "company:0000320193", {
      ...cached,
      body: { ...cached.body, category: "Accelerated filer<br>Smaller reporting company" },
    });
    assert.deepEqual((await apple()).category, ["Accelerated filer", "Smaller reporting company"]);
  });
});
