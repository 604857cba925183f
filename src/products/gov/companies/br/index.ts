// Brazil: GET /v1/gov/br/companies — `q` a name, trade name or trade name plus town, or `id` a CNPJ (14
// characters, punctuation allowed, check digits validated) or its 8-character root (the head office). Receita
// Federal publishes the register only as monthly bulk files, so our own index ("co-br", one entry per
// establishment) IS the source: a CNPJ it does not hold is 404 not_found, not charged.
//
// Sources for the file layout (column order, encoding, quoting, zip entries), checked against each other:
// - Receita Federal, "Dados Abertos do CNPJ" layout (cnpj-metadados.pdf);
// - cuducos/minha-receita: testdata/ (Empresas0.zip, Estabelecimentos0.zip, Simples.zip, code-table zips) and its
//   response shape (testdata/response.json);
// - Nilmarsilva/authbrasil-cnpj ESTRUTURA_DADOS.md: sample rows of every file (Latin-1, `;`, quoted, "0,00"
//   capital, YYYYMMDD dates);
// - paulo3011/opendatafrombrasil assets/docs/database/dictionary.md (field meanings, situação codes);
// - a public CNPJ ingest research note (2026-08): the Nextcloud share, PROPFIND with the token as Basic user, one
//   entry per zip named like K3241.K03200Y0.D60808.EMPRECSV, LF line ends, ZIP64 for Estabelecimentos0, MEI
//   names carrying a CPF, alphanumeric CNPJs from July 2026.

import type { HandlerContext, Warmer } from "../../../../catalog/product.ts";
import { jobKind, notCached, notFound, ok, product } from "../../../../catalog/product.ts";
import { LANE_TIME_LIMIT_MS } from "../../../../jobs/lanes.ts";
import { withFetchHealth } from "../../../../upstream/live-cache.ts";
import { searchLimitParameter } from "../../legislation/index-search.ts";
import { bulkImportStatus, importedRelease } from "../../shared/bulk-import.ts";
import {
  type CountryModuleFactory,
  type GovRouteInfo,
  govProduct,
  govSku,
} from "../../shared/gov-product.ts";
import { lookupQuery } from "../../shared/query.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { companyAnswer, searchAnswer, singleAnswer } from "../answers.ts";
import { cnpjQuery, parseCnpj } from "./cnpj.ts";
import { BR_COLLECTION, importRelease, latestRelease } from "./import.ts";
import { type BrCompany, BrExtrasShape, servedCompany } from "./normalise.ts";
import { brShareUrl } from "./upstream.ts";

export const BR_IMPORT_QUEUE = "gov.br.companies.import";
const BR_RELEASE_WARMER = "gov.br.companies.release";
const DAY_MS = 24 * 3600_000;
/** How long one import job runs before it hands over to the next (kept under its time limit). */
const SLICE_SHARE_OF_LIMIT = 0.6;
/** Until the first release is imported (hours for ~80 million rows), a buyer is told to come back this late. */
const BUILDING_RETRY_SEC = 3600;
const SEARCH_LIMIT = 20;

const BR_INFO: GovRouteInfo = {
  cc: "br",
  country: "Brazil",
  family: "companies",
  upstream: "Receita Federal CNPJ open data (monthly bulk files), indexed by this service",
  licence: {
    // The dataset's record on dados.gov.br (CKAN `cadastro-nacional-da-pessoa-juridica-cnpj`) gives
    // license_id "cc-by"; seen in the metadata captured by cuducos/minha-receita's test data (2024-04).
    name: "Creative Commons Attribution (CC BY), as the dataset's dados.gov.br record states",
    url: "https://dados.gov.br/dados/conjuntos-dados/cadastro-nacional-da-pessoa-juridica-cnpj",
    attribution: "Fonte: Receita Federal do Brasil, Dados Abertos do CNPJ",
    notice:
      "Not a comprovante de inscrição: only Receita Federal's CNPJ card is official. Data as of the monthly " +
      "release named in `release`. Sole traders are people: their CPF is removed from names, their address is " +
      "given to town level and their contact details are withheld (LGPD). Partners (QSA) are not served.",
  },
  warmers: [BR_RELEASE_WARMER],
};

const BrQuery = lookupQuery({
  id: {
    describe:
      "One establishment by its CNPJ (14 characters, punctuation allowed, e.g. 19.131.243/0001-97), or a company by its 8-character root (its head office)",
    parse: (raw) => parseCnpj(raw),
  },
  qDescribe:
    "Company name (razão social), trade name (nome fantasia), or trade name plus town (e.g. 'padaria campinas'); every word must match the start of a word, case and accents folded",
  extra: searchLimitParameter,
});

export const BrCompaniesAnswer = companyAnswer(BrExtrasShape, BrExtrasShape);

let sampleBuild: Promise<unknown> | undefined;

/** UPSTREAMS=replay: builds the index from the recorded listing and the fixture zips on first use. */
async function buildRecordedSample(ctx: HandlerContext): Promise<void> {
  sampleBuild ??= withFetchHealth(ctx, govSku(BR_INFO.cc, BR_INFO.family), async () =>
    importRelease(ctx, await latestRelease(ctx)),
  ).finally(() => {
    sampleBuild = undefined;
  });
  await sampleBuild;
}

function headOffice(establishments: BrCompany[], root: string): BrCompany | undefined {
  const own = establishments.filter((e) => e.id.startsWith(root));
  return own.find((e) => e.headOffice) ?? own[0];
}

async function answer(ctx: HandlerContext, query: { q?: string; id?: string; limit?: number }) {
  const index = GovTitleIndex.of(ctx.store);
  if ((await index.liveGeneration(BR_COLLECTION)) === undefined) {
    if (ctx.upstreams.mode === "replay") await buildRecordedSample(ctx);
    else {
      await ctx.store.jobs.enqueue(BR_IMPORT_QUEUE, "first", { slice: 0 });
      return notCached(
        "Our index of Receita Federal's CNPJ files is being built (a monthly release is about 80 million establishments and takes hours); try again later.",
        BUILDING_RETRY_SEC,
      );
    }
  }
  const fetchedAt = (await index.lastUpdated(BR_COLLECTION)) ?? new Date().toISOString();
  const recordedSample = ctx.upstreams.mode === "replay";
  const release = (await bulkImportStatus(ctx.store, BR_COLLECTION)).live?.release ?? "unknown";
  if (query.id !== undefined) {
    const asked = cnpjQuery(query.id);
    const found =
      asked.kind === "cnpj"
        ? await index.get<BrCompany>(BR_COLLECTION, asked.cnpj)
        : headOffice(
            await index.getRange<BrCompany>(BR_COLLECTION, asked.root, `${asked.root}ZZZZ99`, 50),
            asked.root,
          );
    if (!found) {
      return notFound(
        `No ${asked.kind === "cnpj" ? `establishment with CNPJ ${asked.cnpj}` : `company with CNPJ root ${asked.root}`} in Receita Federal's ${release} release.`,
        { id: query.id },
      );
    }
    const doc = { body: found, fetchedAt, expiresAt: null, etag: null, lastModified: null, recordedSample };
    return ok(singleAnswer(BR_INFO, doc));
  }
  const q = query.q as string;
  const found = await index.search<BrCompany>(BR_COLLECTION, q, query.limit ?? SEARCH_LIMIT);
  const search = {
    totalCount: found?.totalCount ?? 0,
    items: (found?.items ?? []).map(servedCompany),
    source: `${brShareUrl(ctx)}?path=${encodeURIComponent(`/${release}`)}`,
  };
  const doc = { body: search, fetchedAt, expiresAt: null, etag: null, lastModified: null, recordedSample };
  return ok(searchAnswer(BR_INFO, q, doc));
}

/**
 * One slice of the import of the newest complete release (a bulk-lane job): it stops well before its time limit
 * and queues the next slice, which continues from the checkpoint (a download continues with Range).
 */
const importJob = jobKind({ lane: "bulk" }, async (payload, ctx, job) => {
  const slice = Number((payload as { slice?: unknown } | null)?.slice ?? 0);
  const stop = AbortSignal.any([
    AbortSignal.timeout(
      Math.max(10_000, (job?.timeLimitMs ?? LANE_TIME_LIMIT_MS.bulk) * SLICE_SHARE_OF_LIMIT),
    ),
    ...(job ? [job.signal] : []),
  ]);
  const sku = govSku(BR_INFO.cc, BR_INFO.family);
  try {
    await withFetchHealth(
      ctx,
      sku,
      async () => {
        const release = await latestRelease(ctx);
        if ((await importedRelease(ctx.store, BR_COLLECTION)) === release.release) return;
        const status = await importRelease(ctx, release, stop);
        ctx.log.info(
          { release: status.release, rows: status.rows, errors: status.errors },
          "CNPJ release imported",
        );
      },
      // A slice stopped on time is not the upstream failing: the next slice continues.
      { unrecorded: () => stop.aborted },
    );
  } catch (error) {
    if (!stop.aborted) throw error;
    await ctx.store.jobs.enqueue(BR_IMPORT_QUEUE, `slice-${slice + 1}`, { slice: slice + 1 });
  }
});

/** Daily: a newer complete release than the one imported queues its import. */
async function checkRelease(ctx: HandlerContext): Promise<Record<string, unknown>> {
  const release = await latestRelease(ctx);
  const imported = await importedRelease(ctx.store, BR_COLLECTION);
  const status = await bulkImportStatus(ctx.store, BR_COLLECTION);
  const due = imported !== release.release && status.running?.release !== release.release;
  if (due) await ctx.store.jobs.enqueue(BR_IMPORT_QUEUE, `release-${release.release}`, { slice: 0 });
  return {
    latest: release.release,
    imported,
    queued: due,
    importing: status.running ? { release: status.running.release, rows: status.running.rows } : null,
  };
}

export const brReleaseWarmer: Warmer = { name: BR_RELEASE_WARMER, everyMs: DAY_MS, run: checkRelease };

export const brCompanies: CountryModuleFactory = () => {
  const route = govProduct(
    BR_INFO,
    product({
      sku: govSku(BR_INFO.cc, BR_INFO.family),
      method: "GET",
      path: "/v1/gov/br/companies",
      summary: "Brazilian companies (CNPJ): name search or one CNPJ, from Receita Federal's monthly files",
      description:
        "A name search (q: razão social, nome fantasia, or trade name plus town) or one establishment by CNPJ " +
        "(id: 14 characters, punctuation allowed, check digits validated before payment; an 8-character root " +
        "answers the head office) over our own index of Receita Federal's monthly CNPJ release: legal form, " +
        "status with its date and reason, main and secondary activities (CNAE), address, the business's contact " +
        "details as filed, share capital, size, MEI flag. A CNPJ not in the release is 404 not_found (not " +
        "charged). Company-level facts only: no partners (QSA). Sole traders carry no personal tax id, an " +
        "address to town level only and no contact details (LGPD).",
      status: "live",
      price: "0.005",
      query: BrQuery,
      answer: BrCompaniesAnswer,
      sample: { q: "banco do brasil" },
      source: {
        name: "Receita Federal, Dados Abertos do CNPJ (Nextcloud share)",
        url: "https://arquivos.receitafederal.gov.br/index.php/s/YggdBLfdninEJX9",
        licence: BR_INFO.licence,
      },
      handle: ({ query }, ctx) => answer(ctx, query),
    }),
  );
  return { cc: "br", products: [route], warmers: [brReleaseWarmer], jobs: { [BR_IMPORT_QUEUE]: importJob } };
};
