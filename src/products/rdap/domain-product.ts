// GET /v1/rdap/domain: the registration record of a domain from the RDAP server of its registry (found through
// IANA's bootstrap file, then the family's supplement of registries IANA omits): registrar, status, events,
// nameservers, DNSSEC, contacts with redaction noted, and the registry's terms. Cached a day; a domain not
// cached is asked of the registry live inside the paid call.
import { domainToUnicode } from "node:url";
import { z } from "zod";
import {
  type ErrorOutcome,
  type HandlerContext,
  notFound,
  ok,
  product,
  upstreamUnavailable,
} from "../../catalog/product.ts";
import { errorOutcome } from "../../errors.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { liveCached } from "../../upstream/live-cache.ts";
import {
  BOOTSTRAP_KEY,
  BOOTSTRAP_PATH,
  type Bootstrap,
  currentBootstrap,
  IANA_RDAP,
  RDAP_CACHE,
} from "./bootstrap.ts";
import { type DomainName, RdapDomainQuery } from "./domain.ts";
import { normaliseRdapDate, type StoredDomain, termsNotice } from "./normalise.ts";
import { type Route, routeFor } from "./supplement.ts";
import {
  type DomainMissing,
  domainPath,
  fetchDomain,
  isMissing,
  pauseLeftSec,
  RDAP_SOURCE,
  RdapUnavailable,
  registrySpec,
} from "./upstream.ts";

const UNAVAILABLE_RETRY_SEC = 60;
const Timestamp = z.iso.datetime({ offset: true });

export const RdapDomainAnswer = z.object({
  ok: z.literal(true),
  domain: z.string().describe("The domain in A-label (punycode) form, lower case"),
  unicodeName: z.string().nullable().describe("The domain in Unicode, for IDNs; null otherwise"),
  handle: z.string().nullable().describe("The registry's id of the domain object"),
  tld: z.string().describe("The bootstrap or supplement entry that routed the query (usually the TLD)"),
  routedBy: z
    .enum(["iana", "supplement"])
    .describe(
      "iana: IANA's bootstrap file lists the TLD's RDAP service; supplement: IANA lists none, and this " +
        "service's supplemental list of registries (each entry with its source) routed the query",
    ),
  routeSource: z
    .url()
    .describe(
      "Where the registry's RDAP base URL comes from: IANA's bootstrap file, or the supplement entry's source " +
        "(the registry's own documentation where one exists)",
    ),
  registrar: z
    .object({
      name: z.string().nullable(),
      ianaId: z.string().nullable().describe("IANA Registrar ID"),
      handle: z.string().nullable(),
      url: z.string().nullable(),
      abuseEmail: z.string().nullable(),
      abusePhone: z.string().nullable(),
      rdapUrl: z
        .string()
        .nullable()
        .describe("The registrar's own RDAP record of the domain (thin registries refer to it)"),
    })
    .nullable(),
  status: z
    .array(z.string())
    .describe("RDAP status values (RFC 8056 phrases), e.g. client transfer prohibited"),
  registeredAt: Timestamp.nullable(),
  expiresAt: Timestamp.nullable(),
  lastChangedAt: Timestamp.nullable(),
  lastTransferredAt: Timestamp.nullable(),
  registryDataUpdatedAt: Timestamp.nullable().describe("When the registry's RDAP database was last updated"),
  events: z
    .array(z.object({ action: z.string(), date: z.string() }))
    .describe(
      "Every event as the registry lists it; dates in RFC 3339 (an offset sent without a colon, +0000, is " +
        "normalised to +00:00), or as sent when they are not a date",
    ),
  nameservers: z.array(z.string()).describe("Host names, lower case"),
  dnssec: z.object({
    delegationSigned: z.boolean().nullable().describe("null when the registry does not say"),
    dsRecords: z.array(
      z.object({
        keyTag: z.number().int().nullable(),
        algorithm: z.number().int().nullable(),
        digestType: z.number().int().nullable(),
        digest: z.string().nullable(),
      }),
    ),
  }),
  contacts: z
    .array(
      z.object({
        roles: z.array(z.string()).describe("registrant, administrative, technical, billing, abuse …"),
        handle: z.string().nullable(),
        name: z.string().nullable(),
        organization: z.string().nullable(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
        redacted: z.boolean().describe("The registry redacted or withheld this contact"),
      }),
    )
    .describe("Contacts the registry lists (thin registries list none)"),
  redactedFields: z
    .array(z.object({ field: z.string(), method: z.string().nullable(), reason: z.string().nullable() }))
    .describe("Fields the registry declares redacted (RFC 9537)"),
  contactsRedacted: z.boolean().describe("Some contact data is redacted or withheld"),
  licence: z
    .object({ name: z.string(), url: z.url(), attribution: z.string() })
    .describe("The terms of the registry that answered: its terms-of-service link, else its RDAP service"),
  registryTerms: z
    .object({ title: z.string().nullable(), description: z.array(z.string()), url: z.string().nullable() })
    .nullable()
    .describe("The terms-of-service notice of the registry that answered"),
  sourceUrl: z.url().describe("The registry's RDAP URL of the domain"),
  sources: z.array(z.url()),
  fetchedAt: Timestamp,
  notice: z.string(),
});

type RdapDomainAnswerBody = z.infer<typeof RdapDomainAnswer>;

const SAMPLE_PREFIX =
  "RECORDED SAMPLE, NOT LIVE DATA: this record comes from a recorded sample of an RDAP registry's documented " +
  "response shape (UPSTREAMS=replay). ";

function eventDate(domain: StoredDomain, action: string): string | null {
  const raw = domain.events.find((e) => e.action.toLowerCase() === action)?.date;
  return raw === undefined ? null : normaliseRdapDate(raw);
}

function routeWords(route: Pick<Route, "routedBy" | "entry">): string {
  return route.routedBy === "iana"
    ? "found through IANA's RDAP bootstrap file"
    : `found through this service's supplement to IANA's bootstrap file (IANA lists no RDAP service for .${route.entry?.tld}; source: ${route.entry?.source})`;
}

function domainAnswer(
  name: DomainName,
  route: Pick<Route, "suffix" | "routedBy" | "entry">,
  url: string,
  bootstrapUrl: string,
  doc: Pick<CachedDocument<StoredDomain>, "body" | "fetchedAt" | "recordedSample">,
): RdapDomainAnswerBody {
  const d = doc.body;
  const terms = termsNotice(d.notices);
  const contactsRedacted = d.redactions.length > 0 || d.contacts.some((c) => c.redacted);
  const registry = new URL(url).host;
  const routeSource = route.entry?.source ?? bootstrapUrl;
  return {
    ok: true,
    domain: name.ascii,
    unicodeName:
      d.unicodeName ??
      name.unicode ??
      (domainToUnicode(name.ascii) !== name.ascii ? domainToUnicode(name.ascii) : null),
    handle: d.handle,
    tld: route.suffix,
    routedBy: route.routedBy,
    routeSource,
    registrar: d.registrar ? { ...d.registrar, rdapUrl: d.referralUrl } : null,
    status: d.status,
    registeredAt: eventDate(d, "registration"),
    expiresAt: eventDate(d, "expiration"),
    lastChangedAt: eventDate(d, "last changed"),
    lastTransferredAt: eventDate(d, "transfer"),
    registryDataUpdatedAt: eventDate(d, "last update of rdap database"),
    events: d.events,
    nameservers: d.nameservers,
    dnssec: { delegationSigned: d.delegationSigned, dsRecords: d.dsRecords },
    contacts: d.contacts,
    redactedFields: d.redactions,
    contactsRedacted,
    licence: {
      name: `Terms of service of the RDAP service at ${registry}${terms?.title ? ` (${terms.title})` : ""}`,
      url: terms?.links.find((l) => /^https?:\/\//.test(l)) ?? new URL(url).origin,
      attribution: `Registration data from ${registry}, ${route.routedBy === "iana" ? "via IANA's RDAP bootstrap" : "routed by this service's supplement to IANA's RDAP bootstrap"}`,
    },
    registryTerms: terms
      ? { title: terms.title, description: terms.description, url: terms.links[0] ?? null }
      : null,
    sourceUrl: url,
    sources: [...new Set([url, bootstrapUrl, routeSource])],
    fetchedAt: doc.fetchedAt,
    notice:
      (doc.recordedSample ? SAMPLE_PREFIX : "") +
      `Registration data from the RDAP service of ${registry}, subject to that registry's terms of service` +
      `${terms?.links[0] ? ` (${terms.links[0]})` : ""}; ${routeWords(route)}.`,
  };
}

function unavailable(message: string, retryAfterSec = UNAVAILABLE_RETRY_SEC): ErrorOutcome {
  return upstreamUnavailable(`${message}; nothing was charged.`, { retryAfterSec });
}

function unsupportedTld(name: DomainName): ErrorOutcome {
  return errorOutcome(
    "unsupported_tld",
    `.${name.labels.at(-1)} has no RDAP service in IANA's bootstrap file nor in this service's supplement of registries IANA omits, so its registration data cannot be looked up here.`,
    { tld: name.labels.at(-1) },
  );
}

/** The registry serving the domain: IANA's bootstrap (fetched live when none is cached), then the supplement. */
async function routeOf(ctx: HandlerContext, name: DomainName) {
  const bootstrap = await currentBootstrap(ctx);
  if (!bootstrap.ok) return { outcome: unavailable("IANA's RDAP bootstrap file could not be fetched") };
  const registry = routeFor(bootstrap.doc.body, name.labels);
  return registry ? { registry } : { outcome: unsupportedTld(name) };
}

export function rdapDomain() {
  return product({
    sku: "rdap.domain",
    method: "GET",
    path: "/v1/rdap/domain",
    summary:
      "Domain registration record over RDAP: registrar, status, dates, nameservers, DNSSEC, redactions",
    description:
      "The registration record of a domain from the RDAP server of its registry, found through IANA's bootstrap " +
      "file (refreshed daily) or, for TLDs IANA's file omits (de, io, co, me, ch, li …), this service's " +
      "supplement of registries with a documented RDAP service; `routedBy` says which. Registrar with IANA id and abuse contact, status, registration, expiry and change " +
      "dates, every event, nameservers, DNSSEC, contacts with redaction noted, and the registry's terms of service. " +
      "IDNs are accepted and looked up as their A-label. Answers are cached a day; a domain not cached is asked " +
      "of its registry live. A TLD in neither list, or a domain the registry does not know, is 404; a registry that " +
      "is down or rate-limiting (429, honoured per registry) is 503; none is charged.",
    status: "live",
    tags: ["rdap", "domains", "whois"],
    price: "0.01",
    query: RdapDomainQuery,
    answer: RdapDomainAnswer,
    sample: { domain: "google.com" },
    source: RDAP_SOURCE,

    /** Unsupported TLDs are refused before payment when the bootstrap is already cached. */
    async check({ query }, ctx) {
      const cached = await ctx.store.cache.getRecent<Bootstrap>(RDAP_CACHE, BOOTSTRAP_KEY, 30_000);
      if (!cached) return undefined;
      return routeFor(cached.body, query.domain.labels) ? undefined : unsupportedTld(query.domain);
    },

    async handle({ query }, ctx) {
      const name = query.domain;
      const route = await routeOf(ctx, name);
      if (!route.registry) return route.outcome as ErrorOutcome;
      const { baseUrl, suffix } = route.registry;
      const url = ctx.upstreams.client(registrySpec(baseUrl)).url({ path: domainPath(name.ascii) });
      const bootstrapUrl = ctx.upstreams.client(IANA_RDAP).url({ path: BOOTSTRAP_PATH });
      const result = await liveCached<StoredDomain | DomainMissing>(ctx, {
        cacheFamily: RDAP_CACHE,
        key: `domain:${name.ascii}`,
        fetch: () => fetchDomain(ctx, baseUrl, name.ascii),
      });
      if (!result.ok) {
        const error = result.error;
        if (error instanceof RdapUnavailable && error.status === 429) {
          const wait = error.retryAfterSec ?? (await pauseLeftSec(ctx, new URL(baseUrl).host));
          return unavailable(
            `The registry of .${suffix} is rate-limiting this service`,
            wait || UNAVAILABLE_RETRY_SEC,
          );
        }
        ctx.log.warn({ domain: name.ascii, err: String(error) }, "rdap lookup failed");
        return unavailable(`The RDAP server of .${suffix} did not answer for ${name.ascii}`);
      }
      const body = result.doc.body;
      if (isMissing(body)) {
        return notFound(
          `The .${suffix} registry has no record of ${name.ascii}: it is not registered (or not in its RDAP).`,
          {
            domain: name.ascii,
            registryTitle: body.title,
            checkedAt: body.checkedAt,
          },
        );
      }
      return ok(
        domainAnswer(name, route.registry, url, bootstrapUrl, result.doc as CachedDocument<StoredDomain>),
      );
    },
  });
}
