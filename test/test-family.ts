// A family used only by tests: its answers are chosen by the request, so every payment path can be driven.
import { z } from "zod";
import { type Family, notCached, notFound, ok, product } from "../src/catalog/product.ts";

export let handlerRuns = 0;

export function resetHandlerRuns(): void {
  handlerRuns = 0;
}

export const testFamily: Family = {
  name: "test",
  products: [
    product({
      sku: "test.item",
      method: "GET",
      path: "/v1/test/item",
      summary: "Test item",
      description: "Answers as the mode parameter says.",
      status: "live",
      price: "0.01",
      query: z.object({ mode: z.enum(["ok", "missing", "queued", "throws"]) }),
      answer: z.object({ mode: z.string(), fetchedAt: z.string() }),
      sample: { mode: "ok" },
      async handle({ query }) {
        handlerRuns++;
        if (query.mode === "missing") return notFound("No such item.");
        if (query.mode === "queued") return notCached("Not cached yet; queued.", 60);
        if (query.mode === "throws") throw new Error("handler exploded");
        return ok({ mode: query.mode, fetchedAt: "2026-11-20T00:00:00.000Z" });
      },
    }),
    product({
      sku: "test.dynamic",
      method: "GET",
      path: "/v1/test/dynamic",
      summary: "Dynamically priced test item",
      description: "Costs 0.001 USD per unit.",
      status: "live",
      price: {
        dynamic: ({ query }) => (query.units / 1000).toFixed(3),
        minUsd: "0.001",
        maxUsd: "1.000",
        formula: "units × 0.001 USD",
      },
      query: z.object({ units: z.coerce.number().int().min(1).max(1000) }),
      answer: z.object({ units: z.number() }),
      async handle({ query }) {
        return ok({ units: query.units });
      },
    }),
  ],
};

/** A product that answers after `ms` milliseconds, with the time it answered (so a second run shows). */
export const slowFamily: Family = {
  name: "slow",
  products: [
    product({
      sku: "slow.item",
      method: "GET",
      path: "/v1/slow/item",
      summary: "Slow test item",
      description: "Answers after `ms` milliseconds.",
      status: "live",
      price: "0.01",
      query: z.object({ ms: z.coerce.number().int().min(0).max(60_000) }),
      answer: z.object({ ms: z.number(), at: z.number() }),
      async handle({ query }) {
        await new Promise((resolve) => setTimeout(resolve, query.ms));
        return ok({ ms: query.ms, at: Date.now() });
      },
    }),
  ],
};
