// A /v1/gov route is an ordinary product declaration plus what the free index GET /v1/gov lists about it:
// the country, the family, the upstream and its licence, and which warmers make it `live`.
import type { AnyProduct, FamilyFactory, JobHandler, ProductSpec, Warmer } from "../../../catalog/product.ts";
import type { Config } from "../../../config.ts";
import type { Licence } from "./licences.ts";

export type GovFamilyName = "legislation" | "open_data" | "companies" | "accounts";

export interface GovRouteInfo {
  cc: string;
  /** English name of the country (or "European Union"). */
  country: string;
  family: GovFamilyName;
  /** The upstream's name as a buyer knows it, e.g. "RIS OGD API v2.6 (Bundesrecht)". */
  upstream: string;
  licence: Licence;
  /** Warmers whose last success means the route is `live`; a route without warmers is live after a good fetch. */
  warmers: string[];
}

export type GovProduct = AnyProduct & { gov: GovRouteInfo };

const SKU_FAMILY: Record<GovFamilyName, string> = {
  legislation: "legislation",
  open_data: "open-data",
  companies: "companies",
  accounts: "accounts",
};

/** The sku of a gov route: gov.<cc>.<family> (open data: gov.<cc>.open-data). */
export function govSku(cc: string, family: GovFamilyName): string {
  return `gov.${cc}.${SKU_FAMILY[family]}`;
}

export function govProduct<Q, B, A>(
  info: GovRouteInfo,
  spec: ProductSpec<Q, B, A>,
): ProductSpec<Q, B, A> & { gov: GovRouteInfo } {
  if (spec.sku !== govSku(info.cc, info.family)) {
    throw new Error(`${spec.sku}: a gov route's sku is ${govSku(info.cc, info.family)}`);
  }
  if (!spec.path.startsWith(`/v1/gov/${info.cc}/`)) {
    throw new Error(`${spec.sku}: a gov route's path starts with /v1/gov/${info.cc}/`);
  }
  const tags = [...new Set(["gov", info.cc, info.family, ...(spec.tags ?? [])])];
  return { ...spec, tags, gov: info };
}

export function isGovProduct(product: AnyProduct): product is GovProduct {
  return typeof (product as { gov?: unknown }).gov === "object";
}

/** What one country contributes to a gov family: its routes, warmers and job handlers. */
interface CountryModule {
  cc: string;
  products: AnyProduct[];
  warmers?: Warmer[];
  jobs?: Record<string, JobHandler>;
}

export type CountryModuleFactory = (config: Config) => CountryModule;

/** One gov family assembled from its countries' modules, with the gov tables and one recordings folder. */
export function assembleGovFamily(
  name: string,
  countries: CountryModuleFactory[],
  recordingsDir: string,
  migrations: NonNullable<ReturnType<FamilyFactory>["migrations"]>,
): FamilyFactory {
  return (config) => {
    const modules = countries.map((factory) => factory(config));
    const jobs: Record<string, JobHandler> = {};
    for (const module of modules) {
      for (const [queue, handler] of Object.entries(module.jobs ?? {})) {
        if (queue in jobs) throw new Error(`${name}: two countries declare the job queue ${queue}`);
        jobs[queue] = handler;
      }
    }
    return {
      name,
      products: modules.flatMap((m) => m.products),
      warmers: modules.flatMap((m) => m.warmers ?? []),
      jobs,
      recordingsDir,
      migrations,
    };
  };
}
