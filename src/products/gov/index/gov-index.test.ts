import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { startTestService, type TestService } from "../../../../test/harness.ts";
import { ok } from "../../../catalog/product.ts";
import { recordFetchHealth } from "../../../upstream/live-cache.ts";
import { assembleGovFamily, govProduct } from "../shared/gov-product.ts";
import { LICENCES } from "../shared/licences.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { GovIndexAnswer } from "./gov-index.ts";
import { govIndexFamily } from "./index.ts";
import { PLANNED_ROUTES } from "./planned.ts";

// A gov family with one declared route, standing in for a country module.
const testLegislation = assembleGovFamily(
  "gov-test",
  [
    () => ({
      cc: "at",
      products: [
        govProduct(
          {
            cc: "at",
            country: "Austria",
            family: "legislation",
            upstream: "RIS OGD API v2.6 (Bundesrecht)",
            licence: LICENCES.ccBy40("Source: RIS"),
            warmers: [],
          },
          {
            sku: "gov.at.legislation",
            method: "GET",
            path: "/v1/gov/at/legislation",
            summary: "test route",
            description: "test route",
            status: "live",
            price: "0.005",
            query: z.object({ q: z.string() }),
            answer: z.object({ q: z.string() }),
            sample: { q: "test" },
            handle: async ({ query }) => ok({ q: query.q }),
          },
        ),
      ],
    }),
  ],
  "/nonexistent",
  GOV_MIGRATIONS,
);

let service: TestService;

before(async () => {
  service = await startTestService({}, [
    testLegislation({} as never),
    govIndexFamily([testLegislation])({} as never),
  ]);
});
after(() => service.stop());

async function index() {
  const response = await fetch(`${service.url}/v1/gov`);
  assert.equal(response.status, 200);
  return GovIndexAnswer.parse(await response.json());
}

describe("GET /v1/gov", () => {
  it("lists every country route of the spec: the declared one served, the others planned", async () => {
    const body = await index();
    assert.equal(body.count, PLANNED_ROUTES.length);
    const at = body.routes.find((r) => r.path === "/v1/gov/at/legislation");
    assert.equal(at?.sku, "gov.at.legislation");
    assert.equal(at?.state, "stub", "served but never fetched");
    assert.equal(at?.priceUsd, "0.005");
    assert.equal(at?.licence?.name, "Creative Commons Attribution 4.0 International (CC BY 4.0)");
    assert.equal(at?.freeSampleUrl, `${service.config.publicUrl}/v1/gov/at/legislation?q=test&sample=1`);
    const planned = body.routes.filter((r) => r.state === "planned");
    assert.equal(planned.length, PLANNED_ROUTES.length - 1);
    assert.ok(planned.some((r) => r.path === "/v1/gov/sk/accounts" && r.priceUsd === "0.01"));
    assert.deepEqual(body.states, { live: 0, stub: 1, planned: PLANNED_ROUTES.length - 1 });
  });

  it("calls a route live once its upstream answered, with the time of that fetch", async () => {
    await recordFetchHealth(
      { store: service.store },
      "gov.at.legislation",
      undefined,
      new Date("2026-11-20T10:00:00Z"),
    );
    const at = (await index()).routes.find((r) => r.path === "/v1/gov/at/legislation");
    assert.equal(at?.state, "live");
    assert.equal(at?.lastRefresh, "2026-11-20T10:00:00.000Z");
  });

  it("is free and sorted by country", async () => {
    const body = await index();
    const ccs = body.routes.map((r) => r.cc);
    assert.deepEqual(ccs, [...ccs].sort());
  });
});
