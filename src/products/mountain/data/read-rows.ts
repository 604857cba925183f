// Reads a JSON or CSV file of records, keeping the file line each record starts on for error messages.
import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { errorText } from "../../../json.ts";

interface FileRow {
  line: number;
  values: Record<string, unknown>;
}

interface FileRows {
  format: "json" | "csv";
  rows: FileRow[];
  /** CSV header names (empty for JSON). */
  columns: string[];
}

/** A problem with the file as a whole, before any record could be read. */
export class FileProblem extends Error {
  readonly line: number;
  readonly field: string;
  constructor(line: number, field: string, message: string) {
    super(message);
    this.line = line;
    this.field = field;
  }
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line on which each element of the top-level JSON array starts. */
function arrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\n") line++;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (/\s/.test(ch)) continue;
    if (depth === 1 && expectElement && ch !== "]") {
      lines.push(line);
      expectElement = false;
    }
    if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") {
      depth++;
      if (depth === 1) expectElement = ch === "[";
    } else if (ch === "]" || ch === "}") depth--;
    else if (ch === "," && depth === 1) expectElement = true;
  }
  return lines;
}

/** Where JSON text first goes wrong (JSON.parse does not always say): a minimal recursive-descent check. */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === "{") {
      i++;
      space();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ":") fail();
        i++;
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else fail();
      }
    }
    if (ch === "[") {
      i++;
      space();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else fail();
      }
    }
    if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else number();
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail();
    i += match![0].length;
  };
  try {
    value();
    space();
    return Math.min(i, text.length);
  } catch (offset) {
    return Math.min(Number(offset), text.length);
  }
}

function readJson(text: string): FileRows {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const message = errorText(error);
    throw new FileProblem(lineAt(text, jsonErrorOffset(text)), "(file)", `not valid JSON: ${message}`);
  }
  if (!Array.isArray(parsed))
    throw new FileProblem(1, "(file)", "must be a JSON array of records: [ { … }, { … } ]");
  const lines = arrayElementLines(text);
  return {
    format: "json",
    columns: [],
    rows: parsed.map((values, index) => {
      const line = lines[index] ?? 1;
      if (!values || typeof values !== "object" || Array.isArray(values))
        throw new FileProblem(line, "(record)", "must be a JSON object");
      return { line, values: values as Record<string, unknown> };
    }),
  };
}

function readCsv(text: string): FileRows {
  let records: Array<{ record: Record<string, string>; info: { lines: number }; raw: string }>;
  try {
    records = parse(text, {
      columns: (header: string[]) => header.map((name) => name.trim()),
      bom: true,
      info: true,
      raw: true,
      skip_empty_lines: true,
      trim: true,
    }) as typeof records;
  } catch (error) {
    const line = Number((error as { lines?: number }).lines ?? 1);
    throw new FileProblem(line, "(file)", `not valid CSV: ${errorText(error)}`);
  }
  const firstLine = text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const columns = parse(firstLine, { trim: true })[0] as string[] | undefined;
  return {
    format: "csv",
    columns: columns ?? [],
    rows: records.map(({ record, info, raw }) => {
      // raw holds the record's own text, preceded by any empty lines skipped before it.
      const newlines = (
        raw
          .replace(/^(?:\r?\n)+/, "")
          .replace(/\r?\n$/, "")
          .match(/\n/g) ?? []
      ).length;
      return { line: info.lines - newlines, values: record };
    }),
  };
}

export function readRows(file: string): FileRows {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new FileProblem(0, "(file)", `cannot be read: ${errorText(error)}`);
  }
  const extension = path.extname(file).toLowerCase();
  if (extension === ".json") return readJson(text.replace(/^\uFEFF/, ""));
  if (extension === ".csv") return readCsv(text);
  throw new FileProblem(0, "(file)", "must end in .json or .csv");
}
