// Whether a seller validates before its paywall: indexers probe a route with no parameters at all and list it only
// if that probe gets the 402. Found by asking the route bare and, when the checked request was refused, with the
// example its own OpenAPI documents (a 402 there proves the route is paid).
import type { SafeFetcher } from "../fetcher/safe-fetcher.ts";
import { type Problem, problem } from "./problems.ts";

const REFUSED = new Set([400, 422]);

interface OrderDeps {
  fetcher: SafeFetcher;
  origin: string;
}

interface OrderFinding {
  problems: Problem[];
  /** The checked request's refusal is the seller's doing, not the buyer's. */
  sellerFault: boolean;
}

const NONE: OrderFinding = { problems: [], sellerFault: false };

async function statusOf(url: string, method: "GET" | "POST", deps: OrderDeps): Promise<number | undefined> {
  try {
    const response = await deps.fetcher.fetch({
      url,
      method,
      headers: { origin: deps.origin, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
      ...(method === "POST" ? { body: "{}" } : {}),
    });
    return response.status;
  } catch {
    return undefined;
  }
}

function bareUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

type Parameter = { name?: unknown; in?: unknown; required?: unknown; example?: unknown; schema?: unknown };

/** One documented value of a parameter: its example, its schema's example, default or first enum value. */
function exampleOf(parameter: Parameter): unknown {
  const schema = (parameter.schema ?? {}) as {
    example?: unknown;
    examples?: unknown[];
    default?: unknown;
    enum?: unknown[];
  };
  return parameter.example ?? schema.example ?? schema.examples?.[0] ?? schema.default ?? schema.enum?.[0];
}

/** The route's documented example request from the seller's /openapi.json, when every required query has one. */
async function documentedExample(url: URL, deps: OrderDeps): Promise<string | undefined> {
  let openapi: { paths?: Record<string, Record<string, { parameters?: Parameter[] }>> };
  try {
    const response = await deps.fetcher.fetch({
      url: `${url.origin}/openapi.json`,
      headers: { accept: "application/json" },
    });
    if (response.status !== 200) return undefined;
    openapi = JSON.parse(response.body.toString("utf8"));
  } catch {
    return undefined;
  }
  const operation = openapi.paths?.[url.pathname]?.get;
  if (!operation) return undefined;
  const query = new URLSearchParams();
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "query" || typeof parameter.name !== "string") continue;
    const value = exampleOf(parameter);
    if (value === undefined) {
      if (parameter.required === true) return undefined;
      continue;
    }
    query.set(parameter.name, String(value));
  }
  return query.size ? `${bareUrl(url)}?${query}` : undefined;
}

function found(status: number, severity: "error" | "warning", detail: string): Problem {
  return problem(
    "validates_before_paywall",
    severity,
    `a request with no parameters gets ${status}, not 402: ${detail}`,
  );
}

/**
 * What the order of validation and paywall means for the checked answer: a 402 whose bare route answers 400 is a
 * warning; a bare request refused while the documented example gets 402 is the seller's fault.
 */
export async function paywallOrder(
  checked: string,
  method: "GET" | "POST",
  status: number,
  deps: OrderDeps,
): Promise<OrderFinding> {
  const url = new URL(checked);
  const bare = url.search === "" && method === "GET";
  if (status === 402) {
    return bare ? NONE : bareRefused(url, method, deps);
  }
  if (!REFUSED.has(status) || method !== "GET") return NONE;
  const example = await documentedExample(url, deps);
  if (!example || (await statusOf(example, "GET", deps)) !== 402) return NONE;
  if (bare) {
    return {
      problems: [
        found(
          status,
          "error",
          `its documented example (${example}) gets 402, so the route is paid and validates first`,
        ),
      ],
      sellerFault: true,
    };
  }
  return bareRefused(url, method, deps);
}

/** A warning when the route asked bare is refused: indexers probe that way and will not list it. */
async function bareRefused(url: URL, method: "GET" | "POST", deps: OrderDeps): Promise<OrderFinding> {
  const bareStatus = await statusOf(bareUrl(url), method, deps);
  if (bareStatus === undefined || !REFUSED.has(bareStatus)) return NONE;
  return {
    problems: [found(bareStatus, "warning", "indexers probe that way and will not list this route")],
    sellerFault: false,
  };
}
