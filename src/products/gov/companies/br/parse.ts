// Rows of Receita Federal's CNPJ CSV files: no header, `;` between fields, every field in double quotes, LF line
// ends, ISO-8859-1 bytes (decoded as such, never as UTF-8: a stray high byte must not become U+FFFD).
// Layout as published by RF (cnpj-metadados.pdf) and as read by the public importers checked for this adapter:
// cuducos/minha-receita (testdata/*.zip, transform/), Nilmarsilva/authbrasil-cnpj (ESTRUTURA_DADOS.md, sample
// rows of every file), paulo3011/opendatafrombrasil (assets/docs/database/dictionary.md) — see index.ts.

/** One line of a file: its number (from 1) and its fields. */
interface CsvRow {
  line: number;
  fields: string[];
}

/**
 * Splits one line. The fast path is the published form ("a";"b";"c"); anything else (unquoted fields, a `;` or
 * a doubled quote inside a field) goes through a small quote-aware splitter. A quote inside a quoted field that
 * is not followed by `;` or the line end is kept as text (RF rows carry such quotes in names).
 */
export function splitRow(line: string): string[] {
  if (line.startsWith('"') && line.endsWith('"') && !line.includes('""')) {
    const fields = line.slice(1, -1).split('";"');
    if (!fields.some((f) => f.includes('"'))) return fields;
  }
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = "";
      let j = i + 1;
      for (;;) {
        const quote = line.indexOf('"', j);
        if (quote === -1) {
          value += line.slice(j);
          j = line.length;
          break;
        }
        value += line.slice(j, quote);
        const after = line[quote + 1];
        if (after === '"') {
          value += '"';
          j = quote + 2;
        } else if (after === ";" || after === undefined) {
          j = quote + 1;
          break;
        } else {
          value += '"';
          j = quote + 1;
        }
      }
      fields.push(value);
      i = j;
    } else {
      const end = line.indexOf(";", i);
      fields.push(end === -1 ? line.slice(i) : line.slice(i, end));
      i = end === -1 ? line.length : end;
    }
    if (i >= line.length) return fields;
    i++; // the ";"
    if (i === line.length) {
      fields.push("");
      return fields;
    }
  }
}

/**
 * The rows of a Latin-1 CSV byte stream after line `afterLine` (0: all), streamed: lines before it are counted,
 * not split. Empty lines are skipped (their numbers are kept).
 */
export async function* csvRows(bytes: AsyncIterable<Uint8Array>, afterLine = 0): AsyncGenerator<CsvRow> {
  let carry = "";
  let line = 0;
  for await (const chunk of bytes) {
    const text = carry + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1");
    let start = 0;
    for (;;) {
      const end = text.indexOf("\n", start);
      if (end === -1) break;
      line++;
      if (line > afterLine) {
        const raw = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
        if (raw.length > 0) yield { line, fields: splitRow(raw) };
      }
      start = end + 1;
    }
    carry = text.slice(start);
  }
  if (carry.length > 0) {
    line++;
    const raw = carry.endsWith("\r") ? carry.slice(0, -1) : carry;
    if (line > afterLine && raw.length > 0) yield { line, fields: splitRow(raw) };
  }
}
