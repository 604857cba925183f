// The zip reader, the XML record splitter and the bulk download on small archives built in the test.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { downloadBulkFile } from "./bulk-download.ts";
import { xmlRecords } from "./xml-elements.ts";
import { startBytesServer, zipOf } from "./zip-fixture.test-helper.ts";
import { listZipEntries, openZipEntry } from "./zip-stream.ts";

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "zip-stream-"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function bytes(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function text(stream: AsyncIterable<Uint8Array>): Promise<string> {
  return (await bytes(stream)).toString("utf8");
}

describe("zip entries streamed from disk", () => {
  it("lists members with sizes and dates, and inflates deflated and stored ones", async () => {
    const big = Buffer.from("Zoë;".repeat(100_000));
    const file = path.join(dir, "a.zip");
    fs.writeFileSync(
      file,
      zipOf([
        { name: "codes.xml", data: Buffer.from("<codes/>"), stored: true },
        { name: "data/OPEN_DATA_1.xml", data: big },
      ]),
    );
    const entries = await listZipEntries(file);
    assert.deepEqual(
      entries.map((e) => [e.name, e.method, e.size]),
      [
        ["codes.xml", 0, 8],
        ["data/OPEN_DATA_1.xml", 8, big.length],
      ],
    );
    assert.equal(entries[1]?.modified.toISOString(), "2026-11-21T06:30:00.000Z");
    assert.equal(await text((await openZipEntry(file, entries[0] as never)) as never), "<codes/>");
    assert.equal(await text((await openZipEntry(file, entries[1] as never)) as never), big.toString("utf8"));
  });

  it("reads ZIP64 archives, members written as a stream (data descriptor) and names that are not UTF-8", async () => {
    const csv = Buffer.from('"45997418";"S";"20220301";"";"S";"20220301";""\n'.repeat(2000), "latin1");
    const files = [
      { name: "F.K03200$W.SIMPLES.CSV.D61108", data: csv, descriptor: true },
      { name: "MUNICÍPIOS.CSV", data: Buffer.from('"7107";"SÃO PAULO"\n', "latin1"), latin1Name: true },
    ];
    for (const zip64 of [false, true]) {
      const file = path.join(dir, `streamed-${zip64}.zip`);
      fs.writeFileSync(file, zipOf(files, undefined, { zip64 }));
      const entries = await listZipEntries(file);
      assert.deepEqual(
        entries.map((e) => [e.name, e.size]),
        [
          ["F.K03200$W.SIMPLES.CSV.D61108", csv.length],
          ["MUNICÍPIOS.CSV", 19],
        ],
      );
      for (const [i, entry] of entries.entries()) {
        const read = await bytes((await openZipEntry(file, entry)) as never);
        assert.deepEqual(read, files[i]?.data, `${entry.name}, zip64 ${zip64}`);
      }
    }
  });

  it("closes the file when a reader stops early (a removed download frees its disk space)", {
    skip: !fs.existsSync("/proc/self/fd") && "needs /proc/self/fd",
  }, async () => {
    const file = path.join(dir, "early.zip");
    fs.writeFileSync(
      file,
      zipOf([{ name: "big.csv", data: Buffer.from(randomBytes(1 << 20).toString("base64")) }]),
    );
    const [entry] = await listZipEntries(file);
    const openFiles = () => fs.readdirSync("/proc/self/fd").length;
    const before = openFiles();
    for (let i = 0; i < 5; i++) {
      for await (const _ of (await openZipEntry(file, entry as never)) as AsyncIterable<Buffer>) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(openFiles(), before);
  });

  it("fails a member whose bytes do not match its CRC-32, and a file that is not a zip", async () => {
    const file = path.join(dir, "bad.zip");
    const zip = zipOf([{ name: "x.txt", data: Buffer.from("hello world"), stored: true }]);
    zip.write("HELLO", 30 + "x.txt".length);
    fs.writeFileSync(file, zip);
    const [entry] = await listZipEntries(file);
    await assert.rejects(text((await openZipEntry(file, entry as never)) as never), /CRC-32/);
    fs.writeFileSync(path.join(dir, "not.zip"), "<html>maintenance</html>");
    await assert.rejects(listZipEntries(path.join(dir, "not.zip")), /no end of central directory/);
  });
});

async function* chunksOf(...buffers: Buffer[]): AsyncGenerator<Buffer> {
  for (const buffer of buffers) yield buffer;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe("XML records split from a stream", () => {
  it("yields each record with its line, across chunk boundaries, prefixed or not, self-closing too", async () => {
    const xml =
      '<?xml version="1.0"?>\n<root>\n<corporations>\n  <corporation corporationId="1">\n    <name>A</name>\n' +
      '  </corporation>\n  <cc:corporation corporationId="2" note="a > b"/>\n  <corporation corporationId="3"><x/></corporation>\n</corporations></root>\n';
    const chunks = xml.match(/[\s\S]{1,7}/g) as string[];
    const records = [];
    for await (const r of xmlRecords(chunksOf(...chunks.map((c) => Buffer.from(c))), "corporation")) {
      records.push([r.ordinal, r.line, r.xml.slice(0, 40)]);
    }
    assert.deepEqual(records, [
      [1, 4, '<corporation corporationId="1">\n    <nam'],
      [2, 7, '<cc:corporation corporationId="2" note="'],
      [3, 8, '<corporation corporationId="3"><x/></cor'],
    ]);
  });

  it("decodes the encoding the declaration names, and refuses a file ending inside a record", async () => {
    const latin = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><r><corporation>Montréal</corporation></r>',
      "latin1",
    );
    const [record] = await collect(xmlRecords(chunksOf(latin), "corporation"));
    assert.equal(record?.xml, "<corporation>Montréal</corporation>");
    await assert.rejects(
      collect(xmlRecords(chunksOf(Buffer.from("<r>\n<corporation id='1'>\n<name>")), "corporation")),
      /line 2: the file ends inside a <corporation> record/,
    );
  });
});

describe("bulk download", () => {
  it("streams to disk, then reuses the copy on 304, and resumes a cut download with Range", async () => {
    const server = await startBytesServer();
    const bytes = Buffer.alloc(300_000, 7);
    server.serve("/bulk.zip", bytes, '"v1"');
    const request = {
      url: `${server.baseUrl}/bulk.zip`,
      dir: path.join(dir, "dl"),
      fileName: "bulk.zip",
      userAgent: "test",
    };
    try {
      const first = await downloadBulkFile(request);
      assert.deepEqual([first.bytes, first.reused, first.etag], [bytes.length, false, '"v1"']);
      const second = await downloadBulkFile(request);
      assert.equal(second.reused, true);
      assert.equal(server.requests.at(-1)?.ifNoneMatch, '"v1"');

      // A new release, cut after 1000 bytes: the next attempt asks for the rest only.
      const next = Buffer.alloc(200_000, 9);
      server.serve("/bulk.zip", next, '"v2"');
      fs.writeFileSync(path.join(request.dir, "bulk.zip.part"), next.subarray(0, 1000));
      fs.writeFileSync(
        path.join(request.dir, "bulk.zip.json"),
        JSON.stringify({ url: request.url, etag: '"v2"', lastModified: null, complete: false }),
      );
      const resumed = await downloadBulkFile(request);
      assert.equal(server.requests.at(-1)?.range, "bytes=1000-");
      assert.deepEqual([resumed.bytes, resumed.reused], [next.length, false]);
      assert.deepEqual(fs.readFileSync(resumed.file), next);
    } finally {
      await server.close();
    }
  });
});
