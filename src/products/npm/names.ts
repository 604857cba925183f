// npm's package-name and version rules, checked before payment. Names follow the rules npm's own validator
// (validate-npm-package-name) applies to names that may exist in the registry: at most 214 characters, no
// leading dot or underscore, no spaces, URL-safe, scoped as @scope/name. Capitals and ~'!()* are refused for
// new packages but old packages (JSONStream) still carry them, so they are accepted here.
import { z } from "zod";

const NAME_MAX = 214;
const BLOCKED_NAMES = new Set(["node_modules", "favicon.ico"]);

function urlSafe(part: string): boolean {
  return part.length > 0 && encodeURIComponent(part) === part;
}

function checkPart(part: string, what: string): string | undefined {
  if (part.startsWith(".") || part.startsWith("_"))
    return `${what} must not start with a dot or an underscore`;
  if (!urlSafe(part)) return `${what} must contain only URL-safe characters (letters, digits, - . _ ~)`;
  return undefined;
}

/** Why `name` cannot be an npm package name, or undefined when it can. */
export function npmNameProblem(name: string): string | undefined {
  if (name.length === 0) return "name must not be empty";
  if (name.length > NAME_MAX) return `name must be at most ${NAME_MAX} characters`;
  if (name.trim() !== name) return "name must not start or end with spaces";
  if (BLOCKED_NAMES.has(name.toLowerCase())) return `${name} is a name npm does not allow`;
  if (name.startsWith("@")) {
    const match = name.match(/^@([^/]+)\/([^/]+)$/);
    if (!match) return "a scoped name is @scope/name, e.g. @types/node";
    return checkPart(match[1] as string, "the scope") ?? checkPart(match[2] as string, "the name");
  }
  if (name.includes("/")) return "name must not contain a slash unless it is scoped (@scope/name)";
  return checkPart(name, "name");
}

/** The registry path of a packument: the scope's slash is percent-encoded (`/@types%2Fnode`). */
export function packumentPath(name: string): string {
  return `/${name.replace("/", "%2F")}`;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** npm refuses dist-tags that read as a version or range; these are the names it accepts in practice. */
const DIST_TAG = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

export type VersionSpec = { kind: "version"; value: string } | { kind: "tag"; value: string };

export function parseVersionSpec(raw: string): VersionSpec | { error: string } {
  const value = raw.trim();
  const version = value.replace(/^v(?=\d)/, "");
  if (SEMVER.test(version)) return { kind: "version", value: version };
  if (/^v?\d/.test(value)) {
    return { error: "version must be an exact semantic version such as 4.21.2 (ranges are not looked up)" };
  }
  if (DIST_TAG.test(value)) return { kind: "tag", value };
  return { error: "version must be an exact version such as 4.21.2 or a dist-tag such as latest or next" };
}

export const NpmCardQuery = z.object({
  name: z
    .string({ error: "name is required: an npm package name such as express or @types/node" })
    .superRefine((value, ctx) => {
      const problem = npmNameProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .describe("npm package name, scoped names too: express, @types/node"),
  version: z
    .string()
    .transform((raw, ctx) => {
      const parsed = parseVersionSpec(raw);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    })
    .optional()
    .describe("An exact version (4.21.2) or a dist-tag (latest, next); default: the latest dist-tag"),
});
