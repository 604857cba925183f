// The answer of /v1/ofac/sdn: each hit says which name or alias matched, how and how well, and carries the
// entry's programs, addresses, identifiers and the date of the list it is on.
import { z } from "zod";
import type { ListMeta } from "./list-store.ts";
import type { ListName } from "./parse.ts";
import type { NameMatch, ScreeningHit, ScreeningResult } from "./screen.ts";

const NullableText = z.string().nullable();

const MatchedName = z.object({
  name: z.string().describe("The name as the list writes it (LAST, First for people)"),
  nameType: z
    .enum(["primary", "aka", "fka", "nka"])
    .describe("primary: the entry's name; aka/fka/nka: an alias (also/formerly/now known as)"),
  aliasCategory: z
    .enum(["strong", "weak"])
    .nullable()
    .describe(
      "OFAC's quality flag of an alias (null for the primary name); weak aliases never make a hit alone",
    ),
  method: z
    .enum(["exact", "fullName", "nameParts"])
    .describe(
      "exact: same words; fullName: Jaro-Winkler on the whole name scored higher; nameParts: paycall's " +
        "name-part score (Jaro-Winkler and a modified Soundex per part) scored higher",
    ),
  score: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe(
      "paycall's score of this name, 0-100: min(uncappedScore, weakestPartScore). Not the score OFAC's " +
        "Sanctions List Search would show (see the answer's `method`)",
    ),
  fullNameScore: z.number().int().min(0).max(100).describe("Jaro-Winkler on the whole name, 0-100"),
  namePartsScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe("paycall's name-part score, 0-100 (OFAC does not publish its own composite)"),
  uncappedScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe(
      "The higher of fullNameScore and namePartsScore: the combination rule of OFAC FAQ 249, before " +
        "paycall's weakest-part cap",
    ),
  weakestPartScore: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe(
      "How well the query's least-matched part is found in this name; paycall's own cap: the score never " +
        "exceeds it (FAQ 249 has no such cap)",
    ),
});

const Address = z.object({
  street: NullableText,
  city: NullableText,
  stateOrProvince: NullableText,
  postalCode: NullableText,
  country: NullableText,
});

const Identifier = z.object({
  type: z.string().describe("OFAC's idType, e.g. Passport, IMO Number, Digital Currency Address - ETH"),
  number: NullableText,
  country: NullableText,
  issueDate: NullableText.describe("As OFAC writes it (e.g. 01 Jan 2015)"),
  expirationDate: NullableText,
});

const OfacHit = z.object({
  uid: z.number().int().positive().describe("OFAC's entry uid (ent_num)"),
  list: z.enum(["SDN", "CONSOLIDATED"]).describe("SDN list or the consolidated (non-SDN) lists"),
  type: z.enum(["individual", "entity", "vessel", "aircraft"]),
  name: z.string().describe("Primary name as listed (LAST, First for people)"),
  score: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe("paycall's score of the hit (its best primary name or strong alias), 0-100; not OFAC's"),
  matched: MatchedName.describe("The name or alias that made this a hit, with method and scores"),
  weakAliasMatches: z
    .array(MatchedName)
    .describe("Weak aliases of this entry that also reach minScore: shown for review, never a hit alone"),
  programs: z.array(z.string()).describe("Sanctions programs, e.g. RUSSIA-EO14024, SDGT"),
  title: NullableText,
  aliases: z.array(
    z.object({
      name: z.string(),
      nameType: z.enum(["aka", "fka", "nka"]),
      aliasCategory: z.enum(["strong", "weak"]),
    }),
  ),
  addresses: z.array(Address),
  ids: z.array(Identifier),
  datesOfBirth: z.array(z.string()),
  placesOfBirth: z.array(z.string()),
  nationalities: z.array(z.string()),
  citizenships: z.array(z.string()),
  vessel: z
    .object({
      callSign: NullableText,
      vesselType: NullableText,
      flag: NullableText,
      owner: NullableText,
      tonnage: NullableText,
      grossRegisteredTonnage: NullableText,
    })
    .nullable()
    .describe("Vessel details (vessels only)"),
  remarks: NullableText,
  listPublishedOn: z.iso.date().nullable().describe("Publish_Date of the list this entry is on, YYYY-MM-DD"),
});

export const ListInfo = z.object({
  list: z.enum(["SDN", "CONSOLIDATED"]),
  publishedOn: z.iso.date().describe("OFAC's Publish_Date, YYYY-MM-DD"),
  recordCount: z.number().int().nonnegative().nullable().describe("OFAC's Record_Count"),
  entries: z.number().int().nonnegative().describe("Entries indexed"),
  fetchedAt: z.iso.datetime().describe("When this publication was downloaded"),
  checkedAt: z.iso.datetime().describe("When OFAC was last asked for a newer one"),
  source: z.url(),
});

export const OfacSdnAnswer = z.object({
  query: z.string().describe("The name screened, spaces collapsed"),
  normalisedQuery: z
    .string()
    .describe("What was compared: folded case and accents, no punctuation or legal forms"),
  minScore: z.number().int(),
  limit: z.number().int(),
  uid: z.number().int().nullable().describe("The one entry screened, when uid was given"),
  match: z.boolean().describe("True when at least one entry reaches minScore: a potential match to review"),
  hits: z.array(OfacHit).describe("Best score first"),
  count: z.number().int().nonnegative().describe("Hits in this answer"),
  totalHits: z.number().int().nonnegative().describe("Entries reaching minScore before limit"),
  weakAliasOnly: z
    .number()
    .int()
    .nonnegative()
    .describe("Entries that reach minScore on a weak alias only (not hits, per OFAC's guidance)"),
  message: z.string().optional().describe("Present when there is no hit"),
  lists: z.array(ListInfo).describe("The list publications screened against"),
  listVersion: z.string(),
  scoreOrigin: z
    .literal("paycall")
    .describe(
      "Scores are paycall's own, modelled on OFAC's Sanctions List Search (FAQ 249) but computed differently; " +
        "they are not the scores OFAC's tool would show for the same name",
    ),
  method: z.string().describe("How names are scored, and how that differs from OFAC FAQ 249"),
  fetchedAt: z.iso.datetime().describe("When the newest list publication screened was downloaded"),
  source: z.url(),
  notice: z.string(),
});

export const METHOD_TEXT =
  "paycall's own score, modelled on OFAC's Sanctions List Search (FAQ 249) and not identical to it. As in FAQ " +
  "249: candidates must share a first letter with the query and be at least 50% similar by edit distance in " +
  "a name part; each is scored by Jaro-Winkler on the whole name and by name parts with Jaro-Winkler and " +
  "Soundex, and the higher of the two is taken (uncappedScore). Where paycall differs: (1) the score is then " +
  "capped at weakestPartScore, how well the query's least-matched part is found in the name, so it is never " +
  "above and often below what FAQ 249's rule gives; (2) Soundex codes the first letter like the others " +
  "(CASH/KASH sound alike), where American Soundex keeps it; (3) the name-part composite, which OFAC does not " +
  "publish, is paycall's: each part's Jaro-Winkler raised halfway to 1 when the Soundex codes agree, 0.9 for " +
  "an initial, averaged over both names' parts; (4) the whole-name score is the best of the name as written, " +
  "its words sorted and run together; (5) case, accents, punctuation and legal forms (LLC, LTD …) are folded " +
  "away first. Weak aliases never hit alone.";

function matched(match: NameMatch) {
  return {
    name: match.name.display,
    nameType: match.name.kind,
    aliasCategory: match.name.category,
    method: match.method,
    score: match.score,
    fullNameScore: match.fullNameScore,
    namePartsScore: match.namePartsScore,
    uncappedScore: Math.max(match.fullNameScore, match.namePartsScore),
    weakestPartScore: match.weakestPartScore,
  };
}

export function hitOf(
  hit: ScreeningHit,
  lists: Partial<Record<ListName, ListMeta>>,
): z.infer<typeof OfacHit> {
  const { entry } = hit;
  return {
    uid: entry.uid,
    list: entry.list,
    type: entry.type,
    name: entry.firstName ? `${entry.lastName}, ${entry.firstName}` : entry.lastName,
    score: hit.best.score,
    matched: matched(hit.best),
    weakAliasMatches: hit.weakAliases.map(matched),
    programs: entry.programs,
    title: entry.title,
    aliases: entry.aliases.map((a) => ({
      name: a.firstName ? `${a.lastName}, ${a.firstName}` : a.lastName,
      nameType: a.kind,
      aliasCategory: a.category,
    })),
    addresses: entry.addresses,
    ids: entry.ids,
    datesOfBirth: entry.datesOfBirth,
    placesOfBirth: entry.placesOfBirth,
    nationalities: entry.nationalities,
    citizenships: entry.citizenships,
    vessel: entry.vessel,
    remarks: entry.remarks,
    listPublishedOn: lists[entry.list]?.publishedOn ?? null,
  };
}

export function listInfos(lists: Partial<Record<ListName, ListMeta>>): z.infer<typeof ListInfo>[] {
  return (["SDN", "CONSOLIDATED"] as const).flatMap((name) => {
    const meta = lists[name];
    if (!meta) return [];
    return [
      {
        list: name,
        publishedOn: meta.publishedOn,
        recordCount: meta.recordCount,
        entries: meta.entries,
        fetchedAt: meta.fetchedAt,
        checkedAt: meta.checkedAt,
        source: meta.source,
      },
    ];
  });
}

export function noHitMessage(minScore: number, result: ScreeningResult): string {
  const weak =
    result.weakAliasOnly > 0
      ? ` ${result.weakAliasOnly} entr${result.weakAliasOnly === 1 ? "y reaches" : "ies reach"} it on a weak alias only, which OFAC says not to screen on alone.`
      : "";
  return (
    `No entry on the SDN or consolidated lists scores ${minScore} or more for this name.${weak} ` +
    "This is a screening result, not a clearance: check spellings and other names the party uses."
  );
}
