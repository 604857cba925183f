// The source tree's layers (docs/architecture.md, "Layers"): no import circle among the service's modules, no
// module importing from a layer above its own, except the inversions named below, and no product family reaching
// past its boundary ("A family's boundary"). Tests and test helpers (*.test.ts, *.test-helper.ts) may import
// anything.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

const ROOT = path.join(import.meta.dirname, "..");

/** Bottom to top: a module may import its own layer and those below. The first matching prefix decides. */
const LAYERS: Array<{ name: string; prefixes: string[] }> = [
  {
    name: "foundations",
    prefixes: [
      "src/sha256.ts",
      "src/json-once.ts",
      "src/json.ts",
      "src/cli-error.ts",
      "src/memory-release.ts",
      "src/native-memory.ts",
      "src/budgets/",
      "src/x402/shared/",
    ],
  },
  { name: "config", prefixes: ["src/config.ts", "src/log.ts"] },
  { name: "store", prefixes: ["src/store/"] },
  { name: "upstream", prefixes: ["src/upstream/"] },
  { name: "catalog", prefixes: ["src/catalog/", "src/responses.ts", "src/errors.ts"] },
  { name: "observability", prefixes: ["src/observability/"] },
  { name: "payments", prefixes: ["src/x402/facilitator/", "src/x402/seller/", "src/abuse/"] },
  { name: "services", prefixes: ["src/jobs/", "src/preflight/"] },
  { name: "products", prefixes: ["src/products/", "src/features/"] },
  {
    name: "entry",
    prefixes: [
      "src/app.ts",
      "src/build-js.ts",
      "src/http/",
      "src/service.ts",
      "src/main.ts",
      "src/admin/",
      "src/mcp/",
      "src/mcp-bridge/",
      "src/buyer/",
    ],
  },
];

/** Deliberate upward imports, each named and explained in docs/architecture.md ("Layers"). */
const ALLOWED_UPWARD = new Set<string>([]);

/**
 * What a product family (a folder of src/products/) may import besides its own folder: the catalog (declarations
 * and the family's context), the upstream client, and the named shared modules. Not the paid path (x402/seller/),
 * not the worker (jobs/), not the store's modules (its part of the store comes in its context), not another family.
 */
const FAMILY_MAY_IMPORT = [
  "src/catalog/",
  "src/upstream/",
  "src/errors.ts",
  "src/responses.ts",
  "src/json.ts",
  "src/json-once.ts",
  "src/sha256.ts",
  "src/log.ts",
  // The setting readers a family's factory parses its own settings with, once, at start.
  "src/config.ts",
  // Money and network tables: pure functions and constants, no keys and no state.
  "src/x402/shared/money.ts",
  "src/x402/shared/networks.ts",
  // Request-window arithmetic, shared with the upstream client's budgets.
  "src/budgets/",
  // Handing memory back after a large build (an index of a million rows).
  "src/memory-release.ts",
  "src/native-memory.ts",
  // The checks `npm run preflight` runs: a family declares its own with these.
  "src/preflight/probe.ts",
  "src/preflight/live-requirements.ts",
];

/** The family a module belongs to ("gov" for src/products/gov/companies/gb/index.ts), or undefined. */
function familyOf(file: string): string | undefined {
  const parts = file.split("/");
  return parts[0] === "src" && parts[1] === "products" && parts.length > 3 ? parts[2] : undefined;
}

const isTestFile = (file: string) => /\.test(-helper)?\.ts$/.test(file);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith(".ts") && !isTestFile(rel) ? [rel] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(IMPORT)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), (m[1] ?? m[2]) as string)),
  );
}

const files = sourceFiles("src");
const graph = new Map(files.map((file) => [file, importsOf(file)]));

/** The layer's index, or -1 for a file in none (test code, or a module missing from LAYERS). */
function layerOf(file: string): number {
  return LAYERS.findIndex((layer) =>
    layer.prefixes.some((p) => (p.endsWith("/") ? file.startsWith(p) : file === p)),
  );
}

test("every source module belongs to a layer, and none imports from a layer above its own", () => {
  const unplaced = files.filter((file) => layerOf(file) === -1);
  assert.deepEqual(unplaced, [], "modules in no layer: add them to LAYERS and docs/architecture.md");
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const edge = `${file} -> ${target}`;
      if (!target.startsWith("src/") || isTestFile(target))
        wrong.push(`${edge} (service code importing test code)`);
      else if (layerOf(target) > layerOf(file) && !ALLOWED_UPWARD.has(edge)) {
        wrong.push(`${edge} (${LAYERS[layerOf(file)]?.name} -> ${LAYERS[layerOf(target)]?.name})`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test("a product family imports only its own folder, the catalog, the upstream client and the named shared modules", () => {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const family = familyOf(file);
    if (!family) continue;
    for (const target of targets) {
      if (target.startsWith(`src/products/${family}/`)) continue;
      if (FAMILY_MAY_IMPORT.some((p) => (p.endsWith("/") ? target.startsWith(p) : target === p))) continue;
      wrong.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("no product family asks for the service's whole context (Family.attach is for src/features/)", () => {
  const attaching = [...graph.keys()].filter(
    (file) => familyOf(file) && /\battach\s*[(:]/.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
  );
  assert.deepEqual(attaching, []);
  assert.match(fs.readFileSync(path.join(ROOT, "src/features/receipts/index.ts"), "utf8"), /\battach\s*[(:]/);
});

test("no import circle among the source modules", () => {
  // Tarjan's strongly connected components: any component of more than one module is a circle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test("the import scan sees the imports it checks", () => {
  // Guards the regular expression: a scan that found nothing would pass both tests above.
  assert.ok(graph.get("src/service.ts")?.includes("src/app.ts"));
  assert.ok(graph.get("src/upstream/client.ts")?.includes("src/upstream/exchange.ts"));
  assert.equal(familyOf("src/products/gov/companies/gb/index.ts"), "gov");
  assert.equal(familyOf("src/products/index.ts"), undefined);
  assert.ok(graph.get("src/products/nvd/index.ts")?.includes("src/catalog/product.ts"));
});
