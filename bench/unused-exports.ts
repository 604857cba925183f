// Lists the exports of src/ that no other production module imports (bench/ and test code do not count as
// importers), and the functions over a line threshold. A check for dead code, not part of the service:
//   node bench/unused-exports.ts [--verbose] [--lines=100]
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.join(import.meta.dirname, "..");
const verbose = process.argv.includes("--verbose");
const linesArg = process.argv.find((a) => a.startsWith("--lines="));
const LONG = linesArg ? Number(linesArg.slice("--lines=".length)) : 100;

const isTest = (file: string) => /\.test(-helper)?\.ts$/.test(file) || file.startsWith("test/");

function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : walk(rel);
    return entry.name.endsWith(".ts") ? [rel] : [];
  });
}

const all = [...walk("src"), ...walk("test"), ...walk("bench")];
const parsed = new Map(
  all.map((f) => [
    f,
    ts.createSourceFile(f, fs.readFileSync(path.join(ROOT, f), "utf8"), ts.ScriptTarget.Latest, true),
  ]),
);

/** exports[file] = names it exports (declarations and re-exports). */
const exportsOf = new Map<string, Map<string, { line: number; type: boolean }>>();
/** used[file] = names of file imported elsewhere, with the importer kind. */
const usedBy = new Map<string, Map<string, Set<"src" | "test" | "bench">>>();
const kindOf = (f: string) => (isTest(f) ? "test" : f.startsWith("bench/") ? "bench" : "src");

function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return parsed.has(target) ? target : undefined;
}
function use(target: string, name: string, importer: string) {
  const names = usedBy.get(target) ?? new Map<string, Set<"src" | "test" | "bench">>();
  usedBy.set(target, names);
  const kinds = names.get(name) ?? new Set();
  names.set(name, kinds);
  kinds.add(kindOf(importer));
}
const modifiers = (n: ts.Node) => (ts.canHaveModifiers(n) ? (ts.getModifiers(n) ?? []) : []);
const hasExport = (n: ts.Node) => modifiers(n).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

for (const [file, sf] of parsed) {
  const exported = new Map<string, { line: number; type: boolean }>();
  exportsOf.set(file, exported);
  const line = (n: ts.Node) => sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const target = resolve(file, st.moduleSpecifier.text);
      const clause = st.importClause;
      if (!target || !clause) continue;
      if (clause.name) use(target, "default", file);
      const nb = clause.namedBindings;
      if (nb && ts.isNamedImports(nb))
        for (const el of nb.elements) use(target, (el.propertyName ?? el.name).text, file);
      if (nb && ts.isNamespaceImport(nb)) use(target, "*", file);
    } else if (ts.isExportDeclaration(st)) {
      const target =
        st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)
          ? resolve(file, st.moduleSpecifier.text)
          : undefined;
      if (st.exportClause && ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) {
          exported.set(el.name.text, { line: line(el), type: st.isTypeOnly || el.isTypeOnly });
          if (target) use(target, (el.propertyName ?? el.name).text, file);
        }
      } else if (target) use(target, "*", file);
    } else if (hasExport(st)) {
      const isDefault = modifiers(st).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      const type = ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st);
      if (isDefault) exported.set("default", { line: line(st), type });
      else if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) exported.set(d.name.text, { line: line(d), type });
        }
      else if ("name" in st && st.name && ts.isIdentifier(st.name as ts.Node))
        exported.set((st.name as ts.Identifier).text, { line: line(st), type });
    }
  }
  // Dynamic imports and `import("x").T` types: `const { a } = await import(x)`, `(await import(x)).a`,
  // `import(x).then(({ a }) => ...)`; anything else counts as using every export.
  const visit = (n: ts.Node) => {
    if (
      ts.isImportTypeNode(n) &&
      ts.isLiteralTypeNode(n.argument) &&
      ts.isStringLiteral(n.argument.literal)
    ) {
      const target = resolve(file, n.argument.literal.text);
      if (target) use(target, n.qualifier && ts.isIdentifier(n.qualifier) ? n.qualifier.text : "*", file);
    }
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      const target = arg && ts.isStringLiteral(arg) ? resolve(file, arg.text) : undefined;
      if (target) {
        let names: string[] | undefined;
        const p: ts.Node = n.parent;
        if (ts.isAwaitExpression(p)) {
          const q = p.parent;
          if (ts.isVariableDeclaration(q) && ts.isObjectBindingPattern(q.name))
            names = q.name.elements.map((e) => ((e.propertyName ?? e.name) as ts.Identifier).text);
          else if (ts.isParenthesizedExpression(q) && ts.isPropertyAccessExpression(q.parent))
            names = [q.parent.name.text];
        } else if (
          ts.isPropertyAccessExpression(p) &&
          p.name.text === "then" &&
          ts.isCallExpression(p.parent)
        ) {
          const fn = p.parent.arguments[0];
          const param =
            fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) ? fn.parameters[0] : undefined;
          if (param && ts.isObjectBindingPattern(param.name))
            names = param.name.elements.map((e) => ((e.propertyName ?? e.name) as ts.Identifier).text);
        }
        for (const name of names ?? ["*"]) use(target, name, file);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}

// Entry points: main.ts is run directly.
const ENTRY = new Set(["src/main.ts"]);
const rows: Array<{ file: string; name: string; line: number; users: string; type: boolean }> = [];
for (const [file, names] of exportsOf) {
  if (isTest(file) || !file.startsWith("src/") || ENTRY.has(file)) continue;
  const used = usedBy.get(file);
  if (used?.get("*")?.has("src")) continue;
  for (const [name, { line, type }] of names) {
    const kinds = used?.get(name);
    if (kinds?.has("src")) continue;
    rows.push({ file, name, line, type, users: kinds ? [...kinds].sort().join("+") : "none" });
  }
}

function functionsOver(limit: number) {
  const out: Array<{ where: string; name: string; lines: number }> = [];
  for (const [file, sf] of parsed) {
    if (!file.startsWith("src/") || isTest(file)) continue;
    const visit = (n: ts.Node) => {
      if (
        ts.isFunctionDeclaration(n) ||
        ts.isMethodDeclaration(n) ||
        ts.isArrowFunction(n) ||
        ts.isFunctionExpression(n)
      ) {
        const start = sf.getLineAndCharacterOfPosition(n.getStart()).line;
        const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
        const lines = end - start + 1;
        if (lines > limit) {
          let name = (n as ts.FunctionDeclaration).name?.getText() ?? "";
          if (!name && ts.isVariableDeclaration(n.parent)) name = n.parent.name.getText();
          if (!name && ts.isPropertyAssignment(n.parent)) name = n.parent.name.getText();
          if (!name && ts.isCallExpression(n.parent))
            name = `(callback of ${n.parent.expression.getText().slice(0, 40)})`;
          out.push({ where: `${file}:${start + 1}`, name: name || "(anonymous)", lines });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

const byUsers = (u: string) => rows.filter((r) => r.users === u).length;
console.log(
  `exports with no production importer: ${rows.length}` +
    ` (no importer at all ${byUsers("none")}, tests only ${byUsers("test")}, bench only ${byUsers("bench")}, bench+test ${byUsers("bench+test")})`,
);
const values = rows.filter((r) => !r.type).length;
console.log(`  of which values (functions, constants, classes) ${values}, types ${rows.length - values}`);
if (process.argv.includes("--json")) fs.writeFileSync("/tmp/tidy-unused.json", JSON.stringify(rows));
if (verbose)
  for (const r of rows) console.log(`  ${r.file}:${r.line} ${r.type ? "type " : ""}${r.name} [${r.users}]`);
const long = functionsOver(LONG);
console.log(`functions over ${LONG} lines in src/: ${long.length}`);
if (verbose || LONG >= 100) for (const f of long) console.log(`  ${f.lines} ${f.name} ${f.where}`);
console.log(`functions over 60 lines in src/: ${functionsOver(60).length}`);
