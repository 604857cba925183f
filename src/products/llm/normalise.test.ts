import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { normaliseCompletion, upstreamErrorMessage } from "./normalise.ts";
import { LLM_RECORDINGS_DIR } from "./upstream.ts";

const recorded = fs.readFileSync(path.join(LLM_RECORDINGS_DIR, "chat-completion.json"), "utf8");

function completion(choices: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: "chatcmpl-x", object: "chat.completion", model: "m", choices, ...extra });
}

describe("normaliseCompletion", () => {
  it("reads the recorded OpenAI completion: one text choice, its finish reason and the provider's usage", () => {
    const result = normaliseCompletion(recorded);
    assert.ok(!("error" in result));
    assert.equal(result.choices.length, 1);
    assert.deepEqual(Object.keys(result.choices[0]!), ["index", "message", "finish_reason"]);
    assert.equal(result.choices[0]?.index, 0);
    assert.equal(result.choices[0]?.message.role, "assistant");
    assert.match(result.choices[0]!.message.content, /^HTTP 402 Payment Required/);
    assert.equal(result.choices[0]?.finish_reason, "stop");
    assert.deepEqual(result.usage, { prompt_tokens: 905, completion_tokens: 41, total_tokens: 946 });
    assert.equal(result.upstreamModel, "gpt-4.1-mini-2025-04-14");
  });

  it("keeps several choices in order and fills what lenient servers leave out", () => {
    const result = normaliseCompletion(
      completion([
        { message: { content: "first" }, finish_reason: "length" },
        { message: { role: "assistant", content: "second" } },
      ]),
    );
    assert.ok(!("error" in result));
    assert.deepEqual(result.choices, [
      { index: 0, message: { role: "assistant", content: "first" }, finish_reason: "length" },
      { index: 1, message: { role: "assistant", content: "second" }, finish_reason: "stop" },
    ]);
    assert.equal(result.usage, undefined);
  });

  it("answers a refusal's text when the model gives no content", () => {
    const result = normaliseCompletion(
      completion([
        {
          index: 0,
          message: { role: "assistant", content: null, refusal: "I can't help with that." },
          finish_reason: "stop",
        },
      ]),
    );
    assert.ok(!("error" in result));
    assert.equal(result.choices[0]?.message.content, "I can't help with that.");
  });

  it("says why an answer is not a completion", () => {
    const cases: Array<[string, RegExp]> = [
      ["<html>Bad gateway</html>", /not JSON/],
      ["", /not JSON/],
      ["{}", /choices/],
      [completion([]), /choices/],
      [completion([{ text: "legacy completion" }]), /choices\.0\.message/],
      [completion([{ message: { content: 42 } }]), /choices\.0\.message\.content/],
      ["[1,2]", /not a chat completion/],
    ];
    for (const [text, message] of cases) {
      const result = normaliseCompletion(text);
      assert.ok("error" in result, text);
      assert.match(result.error, message, text);
    }
  });
});

describe("upstreamErrorMessage", () => {
  it("finds the message in the shapes compatible servers use", () => {
    assert.equal(
      upstreamErrorMessage(
        JSON.stringify({
          error: {
            message: "This model's maximum context length is 128000 tokens.",
            type: "invalid_request_error",
          },
        }),
      ),
      "This model's maximum context length is 128000 tokens.",
    );
    assert.equal(upstreamErrorMessage(JSON.stringify({ error: "model not found" })), "model not found");
    assert.equal(upstreamErrorMessage(JSON.stringify({ message: "overloaded" })), "overloaded");
    assert.equal(upstreamErrorMessage(JSON.stringify({ detail: "Not Found" })), "Not Found");
    assert.equal(upstreamErrorMessage("upstream connect error"), undefined);
    assert.equal(upstreamErrorMessage(JSON.stringify({ error: { message: "x".repeat(1000) } }))?.length, 300);
  });
});
