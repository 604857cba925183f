// codes.xml of Corporations Canada's open data: every coded value of OPEN_DATA_n.xml (status, act, activity, …)
// with its English and French label: <code name="status"><key value="1"><full xml:lang="en">Active</full>
// <full xml:lang="fr">Actif</full></key>…</code>. The file is small (a few hundred code values) and read whole.
import { XMLParser } from "fast-xml-parser";

export interface CaCodes {
  /** The English label of `code` in the list `list` (French when it has no English one). */
  label: (list: string, code: string | null | undefined) => string | null;
  lists: () => string[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === "code" || name === "key" || name === "full",
});

type Node = Record<string, unknown>;

function labels(key: Node): Map<string, string> {
  const found = new Map<string, string>();
  // Labels are the key's children carrying xml:lang; <full> is preferred over any shorter form.
  const children = Object.entries(key).filter(([name]) => !name.startsWith("@_"));
  children.sort(([a], [b]) => (a === "full" ? -1 : b === "full" ? 1 : 0));
  for (const [, value] of children) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!item || typeof item !== "object") continue;
      const lang = (item as Node)["@_xml:lang"] ?? (item as Node)["@_lang"];
      const text = (item as Node)["#text"];
      if (typeof lang === "string" && typeof text === "string" && text.trim() && !found.has(lang)) {
        found.set(lang, text.trim());
      }
    }
  }
  return found;
}

function collect(node: unknown, into: Map<string, Map<string, string>>): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) collect(item, into);
    return;
  }
  for (const [name, value] of Object.entries(node as Node)) {
    if (name === "code" && Array.isArray(value)) {
      for (const list of value as Node[]) {
        const listName = list?.["@_name"];
        if (typeof listName !== "string") continue;
        const codes = into.get(listName) ?? new Map<string, string>();
        for (const key of (list.key as Node[] | undefined) ?? []) {
          const code = key["@_value"];
          const text = labels(key);
          const label = text.get("en") ?? text.get("fr");
          if (typeof code === "string" && label) codes.set(code.trim(), label);
        }
        into.set(listName, codes);
      }
    } else if (!name.startsWith("@_")) collect(value, into);
  }
}

export function parseCodes(xml: string): CaCodes {
  const lists = new Map<string, Map<string, string>>();
  collect(parser.parse(xml), lists);
  if (lists.size === 0) throw new Error("codes.xml holds no <code name=…> list");
  return {
    label: (list, code) => (code ? (lists.get(list)?.get(code.trim()) ?? null) : null),
    lists: () => [...lists.keys()],
  };
}
