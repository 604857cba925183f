// Splits a streamed XML document into its repeated records (every <corporation>…</corporation>), each handed
// over as its own small XML text with the line it starts on, so that a file of hundreds of megabytes is parsed
// one record at a time. Records must not nest in one another; what lies between them (the root, containers)
// is skipped. The encoding comes from the XML declaration (UTF-8 when it names none).
import { TextDecoder } from "node:util";

interface XmlRecord {
  /** The record's own text, from its start tag to its end tag. */
  xml: string;
  /** 1-based line of the file on which the record's start tag begins. */
  line: number;
  /** 1-based position of the record among the file's records. */
  ordinal: number;
}

/** A record longer than this is taken for a broken file rather than buffered without end. */
const MAX_RECORD_CHARS = 16 * 1024 * 1024;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Where the start tag beginning at `from` ends (the index of its '>'), quotes respected; -1 if not yet read. */
function startTagEnd(text: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ">") return i;
  }
  return -1;
}

function decoderFor(head: Uint8Array): TextDecoder {
  const prolog = Buffer.from(head.subarray(0, 200)).toString("latin1");
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(prolog)?.[1];
  try {
    return new TextDecoder(declared ?? "utf-8", { fatal: false });
  } catch {
    throw new Error(`XML declares an encoding this reader does not know: ${declared}`);
  }
}

/** The records named `name` (with or without a namespace prefix) of a streamed XML document, in order. */
export async function* xmlRecords(
  bytes: AsyncIterable<Uint8Array | string>,
  name: string,
): AsyncGenerator<XmlRecord> {
  const tag = `(?:[A-Za-z_][\\w.-]*:)?${escapeRegExp(name)}`;
  const start = new RegExp(`<(${tag})(?=[\\s/>])`, "g");
  let decoder: TextDecoder | undefined;
  let buffer = "";
  let line = 1;
  let ordinal = 0;
  let pending: { tagName: string; bodyFrom: number } | undefined;

  const take = function* (final: boolean): Generator<XmlRecord> {
    for (;;) {
      if (!pending) {
        start.lastIndex = 0;
        const match = start.exec(buffer);
        if (!match) {
          // Keep a tail long enough to hold a start tag cut in two by the chunk boundary.
          const keep = final ? 0 : Math.min(buffer.length, name.length + 64);
          const cut = buffer.length - keep;
          line += countLines(buffer, 0, cut);
          buffer = buffer.slice(cut);
          return;
        }
        line += countLines(buffer, 0, match.index);
        buffer = buffer.slice(match.index);
        pending = { tagName: match[1] as string, bodyFrom: 0 };
      }
      const tagEnd = startTagEnd(buffer, 1);
      if (tagEnd === -1) break;
      let end: number;
      if (buffer[tagEnd - 1] === "/") end = tagEnd + 1;
      else {
        const close = new RegExp(`</${escapeRegExp(pending.tagName)}\\s*>`, "g");
        close.lastIndex = Math.max(tagEnd + 1, pending.bodyFrom);
        const found = close.exec(buffer);
        if (!found) {
          pending.bodyFrom = Math.max(tagEnd + 1, buffer.length - pending.tagName.length - 8);
          break;
        }
        end = found.index + found[0].length;
      }
      ordinal++;
      // A fresh copy: a slice of the large buffer makes parsers several times slower (V8 sliced strings).
      yield { xml: Buffer.from(buffer.slice(0, end), "utf8").toString("utf8"), line, ordinal };
      line += countLines(buffer, 0, end);
      buffer = buffer.slice(end);
      pending = undefined;
    }
    if (buffer.length > MAX_RECORD_CHARS) {
      throw new Error(`line ${line}: a <${name}> record runs past ${MAX_RECORD_CHARS} characters unclosed`);
    }
    if (final && pending) throw new Error(`line ${line}: the file ends inside a <${name}> record`);
  };

  for await (const chunk of bytes) {
    if (typeof chunk === "string") buffer += chunk;
    else {
      decoder ??= decoderFor(chunk);
      buffer += decoder.decode(chunk, { stream: true });
    }
    yield* take(false);
  }
  if (decoder) buffer += decoder.decode();
  yield* take(true);
}
