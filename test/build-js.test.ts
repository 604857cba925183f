import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { buildJs, isUpToDate, rewriteRelativeImports } from "../src/build-js.ts";
import { eventually, startNodeProcess } from "./node-process.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const HERE = path.join(ROOT, "src", "app.ts");

test("relative imports of modules in the build end in .js; packages, test helpers and prose stay as written", () => {
  const inBuild = (module: string) => !module.endsWith(".test-helper.ts") && !module.endsWith("missing.ts");
  const code = [
    'import { a } from "./config.ts";',
    "export { b } from '../shared/money.ts';",
    'import "./side-effect.ts";',
    'const c = await import("./service.ts");',
    "const d = await import ( './http/route.ts' );",
    'import { e } from "hono";',
    'import { f } from "./harness.test-helper.ts";',
    '// its answer comes from missing.ts, see `import("./missing.ts")`',
    'const g = "./config.ts";',
  ].join("\n");
  assert.deepEqual(rewriteRelativeImports(code, HERE, inBuild).split("\n"), [
    'import { a } from "./config.js";',
    "export { b } from '../shared/money.js';",
    'import "./side-effect.js";',
    'const c = await import("./service.js");',
    "const d = await import ( './http/route.js' );",
    'import { e } from "hono";',
    'import { f } from "./harness.test-helper.ts";',
    '// its answer comes from missing.ts, see `import("./missing.ts")`',
    'const g = "./config.ts";',
  ]);
});

test("a build is up to date until a source is edited, added or removed", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-build-js-"));
  try {
    fs.mkdirSync(path.join(base, "src", "lib"), { recursive: true });
    fs.writeFileSync(
      path.join(base, "src", "main.ts"),
      'import { two } from "./lib/two.ts";\nconst n: number = two;\n',
    );
    fs.writeFileSync(path.join(base, "src", "lib", "two.ts"), "export const two: number = 2;\n");
    const out = path.join(base, "out");
    assert.equal(isUpToDate(["src"], out, base), false, "nothing built yet");
    assert.equal(buildJs(["src"], out, base), 2);
    assert.equal(
      fs.readFileSync(path.join(out, "src", "main.js"), "utf8"),
      'import { two } from "./lib/two.js";\nconst n         = two;\n',
    );
    assert.equal(isUpToDate(["src"], out, base), true);

    const later = new Date(Date.now() + 60_000);
    fs.writeFileSync(path.join(base, "src", "lib", "two.ts"), "export const two: number = 3;\n");
    fs.utimesSync(path.join(base, "src", "lib", "two.ts"), later, later);
    assert.equal(isUpToDate(["src"], out, base), false, "a source edited");
    buildJs(["src"], out, base);
    assert.match(fs.readFileSync(path.join(out, "src", "lib", "two.js"), "utf8"), /two {9}= 3;/);

    fs.writeFileSync(path.join(base, "src", "lib", "three.test.ts"), "export {};\n");
    const evenLater = new Date(Date.now() + 120_000);
    fs.utimesSync(path.join(base, "src", "lib"), evenLater, evenLater);
    assert.equal(isUpToDate(["src"], out, base), false, "a file added");
    buildJs(["src"], out, base);
    assert.equal(isUpToDate(["src"], out, base), true);
    assert.equal(fs.existsSync(path.join(out, "src", "lib", "three.test.js")), false, "tests are left out");
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

const outDir = fs.mkdtempSync(path.join(ROOT, "dist-test-"));
after(() => fs.rmSync(outDir, { recursive: true, force: true }));

test("the build holds every service module as JavaScript with the sources' lines, and the files beside them", () => {
  const count = buildJs(["src"], outDir);
  const sources = fs
    .globSync("src/**/*", { cwd: ROOT })
    .filter((f) => fs.statSync(path.join(ROOT, f)).isFile());
  const modules = sources.filter((f) => f.endsWith(".ts") && !/\.test(-helper)?\.ts$/.test(f));
  assert.equal(count, modules.length);
  for (const module of modules) {
    const built = fs.readFileSync(path.join(outDir, module.replace(/\.ts$/, ".js")), "utf8");
    const source = fs.readFileSync(path.join(ROOT, module), "utf8");
    assert.equal(built.split("\n").length, source.split("\n").length, `${module}: lines moved`);
  }
  for (const other of sources.filter((f) => !f.endsWith(".ts")))
    assert.ok(fs.existsSync(path.join(outDir, other)), `${other} not copied`);
  const built = fs.globSync("**/*", { cwd: outDir });
  assert.deepEqual(
    built.filter((f) => f.endsWith(".ts")),
    [],
    "no TypeScript (and no test) in the build",
  );
});

test("the service started from the build serves, and its warmers read the recordings copied beside it", async () => {
  buildJs(["src"], outDir);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-build-js-"));
  const node = await startNodeProcess(
    { DATA_DIR: dataDir, UPSTREAMS: "replay", ROLE: "all" },
    30_000,
    path.join(outDir, "src", "main.js"),
  );
  try {
    const ready = await eventually(async () => ((await fetch(`${node.url}/ready`)).ok ? true : undefined));
    assert.equal(ready, true);
    const unpaid = await fetch(`${node.url}/v1/macro/ecb/fx?pair=USD`);
    assert.equal(unpaid.status, 402);
    const warmed = await eventually(
      async () => node.logs.find((line) => line.includes('"warmer":"ecb.fx"') && line.includes("finished")),
      30_000,
      "the ecb.fx warmer",
    );
    assert.match(warmed, /"currencies":\d+/);
  } finally {
    await node.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
