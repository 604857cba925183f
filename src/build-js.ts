// `npm start` (its `prestart`) and the Docker image run the service from JavaScript written by this module, so the
// serving process never loads Node's TypeScript stripper (about 17 MB of resident memory a node keeps for
// nothing; bench/README.md, "Memory at rest"). Every module under the roots (tests and test helpers left out) is
// written to the same path under the output folder with its types stripped and its relative `.ts` imports
// rewritten to `.js`; every other file (recordings, sample data) is copied beside it, so paths built from
// `import.meta.dirname` find the same files. Stripping replaces types with blanks, so a stack trace's lines and
// columns are the sources'. Tests, benches and the other CLI commands keep running the sources.
//
//   node --disable-warning=ExperimentalWarning src/build-js.ts [output folder, default dist]
// (does nothing when the folder already holds a build of src/ as it is now: sourceStamp)
import fs from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Modules only tests load: left out of the build (the image leaves them out too, .dockerignore). */
export function isTestModule(file: string): boolean {
  return file.endsWith(".test.ts") || file.endsWith(".test-helper.ts");
}

/** Static imports and exports (`from "./x.ts"`), side-effect imports and `import("./x.ts")` with a literal. */
const RELATIVE_TS_IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

/**
 * `code` (types already stripped) with each relative `.ts` specifier of a module in the build (`inBuild`) ending
 * in `.js`. Any other is left as written: the words of a comment, or a module the build leaves out (a test
 * helper, which no service module may import: test/layers.test.ts).
 */
export function rewriteRelativeImports(
  code: string,
  file: string,
  inBuild: (module: string) => boolean,
): string {
  return code.replace(RELATIVE_TS_IMPORT, (match, head: string, quote: string, stem: string) =>
    inBuild(path.resolve(path.dirname(file), `${stem}.ts`)) ? `${head}${quote}${stem}.js${quote}` : match,
  );
}

/** The files under `root` (absolute paths), recursively. */
function filesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Kept in the output folder: what it was built from (sourceStamp). */
const STAMP_FILE = ".build-stamp.json";

/**
 * What a build depends on: Node's version (its stripper) and the newest modification time over every file and
 * folder under the roots, with their count. Editing a file changes its time; adding, removing or renaming one
 * changes its folder's.
 */
function sourceStamp(roots: string[], base: string): string {
  let newest = 0;
  let entries = 0;
  for (const root of roots) {
    const folder = path.resolve(base, root);
    const paths = [
      folder,
      ...fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).map((p) => path.join(folder, p)),
    ];
    for (const entry of paths) newest = Math.max(newest, fs.statSync(entry).mtimeMs);
    entries += paths.length;
  }
  return JSON.stringify({ node: process.version, roots, entries, newest });
}

/** Whether `outDir` holds a complete build of the sources as they are now. */
export function isUpToDate(roots: string[], outDir: string, base = ROOT): boolean {
  const stamp = path.join(outDir, STAMP_FILE);
  return fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === sourceStamp(roots, base);
}

/**
 * Writes the JavaScript of `roots` (folders relative to `base`) into `outDir`, replacing what it held. The new
 * tree is written beside it and swapped in whole, so a failed build leaves the previous one as it was.
 * Returns the number of modules written.
 */
export function buildJs(roots: string[], outDir: string, base = ROOT): number {
  const stamp = sourceStamp(roots, base);
  const files = roots.flatMap((root) => filesUnder(path.resolve(base, root)));
  const modules = new Set(files.filter((file) => file.endsWith(".ts") && !isTestModule(file)));
  const partial = `${outDir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  try {
    for (const file of files) {
      if (file.endsWith(".ts") && !modules.has(file)) continue;
      const target = path.join(partial, path.relative(base, file));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (!modules.has(file)) {
        fs.copyFileSync(file, target);
        continue;
      }
      const code = stripTypeScriptTypes(fs.readFileSync(file, "utf8"), { mode: "strip" });
      const javascript = rewriteRelativeImports(code, file, (module) => modules.has(module));
      fs.writeFileSync(target.replace(/\.ts$/, ".js"), javascript);
    }
    fs.writeFileSync(path.join(partial, STAMP_FILE), stamp);
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.renameSync(partial, outDir);
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return modules.size;
}

if (import.meta.main) {
  const outDir = path.resolve(ROOT, process.argv[2] ?? "dist");
  const name = path.relative(process.cwd(), outDir) || ".";
  const started = performance.now();
  if (isUpToDate(["src"], outDir)) {
    process.stdout.write(`${name}: up to date with src/\n`);
  } else {
    const count = buildJs(["src"], outDir);
    process.stdout.write(`${name}: ${count} modules in ${Math.round(performance.now() - started)} ms\n`);
  }
}
