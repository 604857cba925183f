import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { FieldDictionaryAnswer, fieldDictionary, schemaRoute } from "./field-dictionary.ts";
import { product } from "./product.ts";

const Answer = z.object({
  ok: z.literal(true),
  name: z.string().describe("The name"),
  size: z.number().int().nullable().describe("Size, bytes"),
  kind: z.enum(["a", "b"]),
  tags: z.record(z.string(), z.string()).describe("Tag → value"),
  items: z.array(z.object({ at: z.iso.datetime(), note: z.string().optional() })),
  nested: z.object({ deep: z.boolean() }).nullable(),
});

describe("field dictionary", () => {
  const fields = new Map(fieldDictionary(Answer).map((f) => [f.path, f]));

  it("lists every field with type, presence, nullability, meaning, format and values", () => {
    assert.deepEqual(fields.get("size"), {
      path: "size",
      type: "integer",
      required: true,
      nullable: true,
      description: "Size, bytes",
      format: null,
      enum: null,
    });
    assert.deepEqual(fields.get("kind")?.enum, ["a", "b"]);
    assert.equal(fields.get("tags{}")?.type, "string");
    assert.equal(fields.get("items[].at")?.format, "date-time");
    assert.equal(fields.get("items[].note")?.required, false);
    assert.equal(fields.get("nested.deep")?.type, "boolean");
    assert.equal(fields.get("nested")?.nullable, true);
    assert.equal(fields.get("ok")?.type, "boolean");
  });

  it("the schema route serves the dictionary of the family's products", async () => {
    const paid = product({
      sku: "t.item",
      method: "GET",
      path: "/v1/t/item",
      summary: "An item",
      description: "An item",
      status: "live",
      price: "0.01",
      answer: Answer,
      handle: async () => ({ status: 200, body: {} as z.infer<typeof Answer> }),
    });
    const route = schemaRoute({
      sku: "t.schema",
      path: "/v1/t/schema",
      family: "t",
      title: "test",
      products: () => [paid],
    });
    const outcome = await route.handle({ query: {}, body: undefined }, {} as never);
    assert.equal(outcome.status, 200);
    const body = FieldDictionaryAnswer.parse(outcome.body);
    assert.equal(body.products[0]?.priceUsd, "0.01");
    assert.equal(body.products[0]?.fields.length, fields.size);
  });
});
