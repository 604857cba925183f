import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chatBodySchema } from "./body.ts";

const schema = chatBodySchema("gpt-4.1-mini");
const hello = [{ role: "user", content: "Hello" }];

/** The field the route's 400 names (the first issue's path, as src/catalog/input.ts reports it). */
function rejected(body: unknown): { parameter: string; message: string } {
  const result = schema.safeParse(body);
  assert.equal(result.success, false, `expected ${JSON.stringify(body).slice(0, 120)} to be refused`);
  const issue = result.error!.issues[0]!;
  return { parameter: issue.path.map(String).join(".") || "body", message: issue.message };
}

function expectRejected(body: unknown, parameter: string, message?: RegExp) {
  const issue = rejected(body);
  assert.equal(issue.parameter, parameter, `${JSON.stringify(body).slice(0, 120)}: ${issue.message}`);
  if (message) assert.match(issue.message, message);
}

describe("chat body", () => {
  it("fills the defaults: the default model and max_tokens 1024", () => {
    assert.deepEqual(schema.parse({ messages: hello }), {
      model: "gpt-4.1-mini",
      messages: hello,
      max_tokens: 1024,
    });
  });

  it("accepts every documented field", () => {
    const body = {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "" },
        { role: "user", content: "Again" },
      ],
      max_tokens: 32000,
      temperature: 0,
      top_p: 1,
      stop: ["\n\n", "END"],
      seed: -42,
      response_format: { type: "json_schema", json_schema: { name: "answer_v1", schema: {}, strict: true } },
    };
    assert.deepEqual(schema.parse(body), body);
    assert.deepEqual(schema.parse({ messages: hello, stop: "END" }).stop, ["END"]);
    for (const type of ["text", "json_object"]) {
      assert.deepEqual(schema.parse({ messages: hello, response_format: { type } }).response_format, {
        type,
      });
    }
  });

  it("model: a non-empty string (which models exist is checked against the configuration)", () => {
    expectRejected({ messages: hello, model: "" }, "model", /omit it for the default model/);
    expectRejected({ messages: hello, model: 4 }, "model", /model name/);
    expectRejected({ messages: hello, model: "m".repeat(101) }, "model");
    assert.equal(schema.parse({ messages: hello, model: " gpt-4o-mini " }).model, "gpt-4o-mini");
  });

  it("messages: required, 1 to 500 items", () => {
    expectRejected({}, "messages", /is required/);
    expectRejected({ messages: "Hello" }, "messages");
    expectRejected({ messages: [] }, "messages", /at least one message/);
    const many = Array.from({ length: 501 }, () => ({ role: "user", content: "x" }));
    expectRejected({ messages: many }, "messages", /at most 500 messages/);
    assert.equal(schema.parse({ messages: many.slice(0, 500) }).messages.length, 500);
  });

  it("each message: role system, user or assistant; content a string (text only); nothing else", () => {
    for (const role of ["tool", "developer", "function", "", "User", 1]) {
      expectRejected({ messages: [{ role, content: "x" }] }, "messages.0.role", /system, user or assistant/);
    }
    expectRejected({ messages: [{ content: "x" }] }, "messages.0.role");
    expectRejected({ messages: [...hello, { role: "user" }] }, "messages.1.content", /is required/);
    expectRejected(
      { messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] },
      "messages.0.content",
      /text only/,
    );
    expectRejected({ messages: [{ role: "user", content: null }] }, "messages.0.content", /text only/);
    expectRejected(
      { messages: [{ role: "user", content: "x", name: "bob" }] },
      "messages.0.name",
      /role and content/,
    );
    expectRejected({ messages: ["Hello"] }, "messages.0");
  });

  it("max_tokens: an integer from 1 to 32000", () => {
    for (const value of [0, -1, 32001, 1.5, "100", null]) {
      expectRejected({ messages: hello, max_tokens: value }, "max_tokens");
    }
    assert.match(rejected({ messages: hello, max_tokens: 32001 }).message, /at most 32000/);
  });

  it("temperature 0 to 2 and top_p 0 to 1, numbers", () => {
    for (const value of [-0.1, 2.01, "1", null])
      expectRejected({ messages: hello, temperature: value }, "temperature");
    for (const value of [-0.1, 1.01, "1"]) expectRejected({ messages: hello, top_p: value }, "top_p");
  });

  it("stop: 1 to 4 non-empty strings", () => {
    for (const value of [[], ["a", "b", "c", "d", "e"], "", [1], 7]) {
      expectRejected({ messages: hello, stop: value }, "stop");
    }
    expectRejected({ messages: hello, stop: ["END", ""] }, "stop.1", /must not be empty/);
  });

  it("seed: a safe integer", () => {
    for (const value of [1.5, "7", 2 ** 60]) expectRejected({ messages: hello, seed: value }, "seed");
  });

  it("response_format: text, json_object or a named json_schema", () => {
    expectRejected({ messages: hello, response_format: "json" }, "response_format");
    expectRejected({ messages: hello, response_format: { type: "xml" } }, "response_format.type");
    expectRejected(
      { messages: hello, response_format: { type: "json_schema", json_schema: { schema: {} } } },
      "response_format.json_schema.name",
    );
    expectRejected(
      { messages: hello, response_format: { type: "json_schema", json_schema: { name: "has space" } } },
      "response_format.json_schema.name",
    );
    expectRejected({ messages: hello, response_format: { type: "text", extra: 1 } }, "response_format");
  });

  it("unknown fields are refused by name, with the reason for OpenAI fields this endpoint leaves out", () => {
    expectRejected({ messages: hello, stream: true }, "stream", /streaming is not offered/);
    expectRejected({ messages: hello, tools: [] }, "tools", /text only/);
    expectRejected({ messages: hello, n: 2 }, "n", /one choice per call/);
    expectRejected({ messages: hello, max_completion_tokens: 10 }, "max_completion_tokens", /use max_tokens/);
    expectRejected({ messages: hello, frobnicate: 1 }, "frobnicate", /takes model, messages, max_tokens/);
  });

  it("is documented as a closed object with its limits", async () => {
    const { toJsonSchema } = await import("../../catalog/describe.ts");
    const json = toJsonSchema(schema, "input") as {
      additionalProperties: boolean;
      required: string[];
      properties: Record<string, { maxItems?: number; maximum?: number; default?: unknown }>;
    };
    assert.equal(json.additionalProperties, false);
    assert.deepEqual(json.required, ["messages"]);
    assert.equal(json.properties.messages?.maxItems, 500);
    assert.equal(json.properties.max_tokens?.maximum, 32000);
    assert.equal(json.properties.max_tokens?.default, 1024);
    assert.equal(json.properties.model?.default, "gpt-4.1-mini");
  });
});
