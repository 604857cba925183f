// An answer's tool result is written around the answer's text rather than encoded again: the bytes must be the
// ones JSON.stringify gives for the result object, on either binding, with and without a settlement.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SettleResponse } from "@x402/core/types";
import type { Config } from "../config.ts";
import type { AnswerOutcome } from "../x402/seller/paid-call/outcome.ts";
import { modernCallResult, modernCallResultJson, toolResultBinding, toolResultJson } from "./bindings.ts";
import { toolOutcome } from "./tool-outcome.ts";
import type { McpTool } from "./tools.ts";

const config = {} as Config;
const tool = {} as McpTool;
const data = {
  ok: true,
  "2": "an integer-like key",
  quote: 'a "quoted" line\nand \u2028 a separator, \ud83d\ude00',
  rows: [{ date: "2026-08-17", rate: 1.1886 }, null, 1e21, -0],
};
const settlement: SettleResponse = {
  success: true,
  transaction: "0xabc",
  network: "eip155:84532",
  payer: "0x0000000000000000000000000000000000000001",
};

const answers: [string, AnswerOutcome][] = [
  ["a free answer", { kind: "answer", text: JSON.stringify(data), data }],
  [
    "a paid answer",
    { kind: "answer", text: JSON.stringify(data), data, paymentResponse: "e30=", settlement },
  ],
  ["an array answer", { kind: "answer", text: JSON.stringify([data]), data: [data] }],
];

test("an answer's result JSON is JSON.stringify of its result, on both bindings", () => {
  for (const [name, answer] of answers) {
    const outcome = toolOutcome(config, tool, answer);
    assert.ok("result" in outcome && outcome.json, `${name}: written around its text`);
    assert.equal(toolResultJson(outcome), JSON.stringify(toolResultBinding(outcome)), name);
    for (const extension of [false, true]) {
      assert.equal(
        modernCallResultJson(outcome, extension),
        JSON.stringify(modernCallResult(outcome, extension)),
        `${name}, extension ${extension}`,
      );
    }
  }
});

test("a kept answer (its text only) and a scalar answer are encoded from the result", () => {
  const kept: AnswerOutcome = {
    kind: "answer",
    text: JSON.stringify(data),
    paymentResponse: "e30=",
    settlement,
  };
  const scalar: AnswerOutcome = { kind: "answer", text: "42", data: 42 };
  for (const [answer, structured] of [
    [kept, JSON.parse(kept.text)],
    [scalar, undefined],
  ] as const) {
    const outcome = toolOutcome(config, tool, answer);
    assert.ok("result" in outcome && !outcome.json);
    assert.equal(toolResultJson(outcome), JSON.stringify(toolResultBinding(outcome)));
    assert.deepEqual(JSON.parse(toolResultJson(outcome)).structuredContent, structured);
  }
});
