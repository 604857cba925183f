// Screening a name against the sanctions lists with paycall's own score, modelled on the method OFAC describes
// for its Sanctions List Search (FAQ 249) but not identical to it (answer.ts METHOD_TEXT lists the differences
// buyers see): a prefilter keeps names with a part that starts with the same letter as a part of the query and
// is at least 50 % similar by edit distance; each kept name is scored twice, by Jaro-Winkler on the whole name
// and by comparing name parts with Jaro-Winkler and Soundex; the higher of the two is FAQ 249's score.
//
// Our reading of the parts technique, which FAQ 249 leaves open: a part scores its Jaro-Winkler similarity,
// raised halfway to 1 when both parts sound alike (equal Soundex), 0.9 for an initial against a name starting
// with that letter; the name's part score is the mean of how well the query's parts are found in the name and
// how well the name's parts are found in the query (so order does not matter, a missing middle name costs
// little). Soundex codes the first letter too (names.ts soundexOf). One rule of our own on top: a name scores at most as well as the query's least-matched part is
// found in it, because Jaro-Winkler on whole strings rewards a shared first name ("MICHAEL JORDAN" and
// "MICHAEL JACKSON" score 91 on the whole string).
//
// The index: every name's parts (and the whole name run together) in a dictionary bucketed by first letter,
// each part with the names that hold it. A query walks only the buckets of its parts' first letters.
import { normaliseName, soundexOf } from "./names.ts";
import type { AliasKind, SanctionEntry } from "./parse.ts";
import { editSimilarity, jaroWinkler } from "./similarity.ts";

type NameKind = "primary" | AliasKind;

interface IndexedName {
  entry: number;
  kind: NameKind;
  category: "strong" | "weak" | null;
  /** The name as OFAC writes it: "LAST, First" for people. */
  display: string;
  text: string;
  sorted: string;
  compact: string;
  tokens: string[];
}

type MatchMethod = "exact" | "fullName" | "nameParts";

export interface NameMatch {
  name: IndexedName;
  score: number;
  method: MatchMethod;
  fullNameScore: number;
  namePartsScore: number;
  /** How well the query's least-matched part is found in the name: the score never exceeds it. */
  weakestPartScore: number;
}

export interface ScreeningHit {
  entry: SanctionEntry;
  /** The best primary name or strong alias: the match that makes this a hit. */
  best: NameMatch;
  /** Weak aliases of this entry that also score at least minScore (shown, never a hit alone). */
  weakAliases: NameMatch[];
}

export interface ScreeningResult {
  hits: ScreeningHit[];
  /** Entries that reached minScore, before `limit` was applied. */
  totalHits: number;
  /** Entries that reached minScore on a weak alias only, and so are not hits. */
  weakAliasOnly: number;
  /** Names that passed the prefilter and were scored. */
  namesScored: number;
}

interface ScreeningOptions {
  minScore: number;
  limit: number;
  /** Screen this one entry only (all its names, no prefilter). */
  uid?: number;
}

const INITIAL_SCORE = 0.9;
/** Prefilter answers remembered per index (least recently used dropped first). */
const NEAR_CACHE_WORDS = 5000;

function partScore(q: string, t: string): number {
  if (q === t) return 1;
  if (q.length === 1 || t.length === 1) return q.charCodeAt(0) === t.charCodeAt(0) ? INITIAL_SCORE : 0;
  const jw = jaroWinkler(q, t);
  const sq = soundexOf(q);
  return sq !== "" && sq === soundexOf(t) ? (1 + jw) / 2 : jw;
}

type PartScorer = (q: string, t: string) => number;

function coverage(from: string[], to: string[], score: PartScorer): number {
  let sum = 0;
  for (const a of from) {
    let best = 0;
    for (const b of to) {
      const s = score(a, b);
      if (s > best) best = s;
      if (best === 1) break;
    }
    sum += best;
  }
  return sum / from.length;
}

interface QueryName {
  text: string;
  sorted: string;
  compact: string;
  tokens: string[];
}

/**
 * How well the query's worst part is found in the name (its parts, or all of it run together): a name cannot
 * score better than this, so "KIM JONG UN" does not match "KIM JONG IL" on the strength of two shared parts.
 * Initials are left out: "V PUTIN" is judged by PUTIN.
 */
function weakestPart(query: QueryName, name: IndexedName, score: PartScorer): number {
  let weakest = 1;
  for (const part of query.tokens) {
    if (part.length === 1) continue;
    let best = name.compact === "" ? 0 : score(part, name.compact);
    for (const other of name.tokens) {
      if (best === 1) break;
      const s = score(part, other);
      if (s > best) best = s;
    }
    if (best < weakest) weakest = best;
  }
  return weakest;
}

function isExact(query: QueryName, name: IndexedName): boolean {
  return query.text === name.text || query.sorted === name.sorted || query.compact === name.compact;
}

function scoreName(query: QueryName, name: IndexedName, score: PartScorer = partScore): NameMatch {
  if (isExact(query, name)) {
    return {
      name,
      score: 100,
      method: "exact",
      fullNameScore: 100,
      namePartsScore: 100,
      weakestPartScore: 100,
    };
  }
  const full = Math.max(
    jaroWinkler(query.text, name.text),
    jaroWinkler(query.sorted, name.sorted),
    jaroWinkler(query.compact, name.compact),
  );
  const parts =
    query.tokens.length === 0 || name.tokens.length === 0
      ? 0
      : (coverage(query.tokens, name.tokens, score) + coverage(name.tokens, query.tokens, score)) / 2;
  const fullNameScore = Math.floor(full * 100);
  const namePartsScore = Math.floor(parts * 100);
  const weakestPartScore = Math.floor(weakestPart(query, name, score) * 100);
  const method: MatchMethod = namePartsScore > fullNameScore ? "nameParts" : "fullName";
  return {
    name,
    score: Math.min(Math.max(fullNameScore, namePartsScore), weakestPartScore),
    method,
    fullNameScore,
    namePartsScore,
    weakestPartScore,
  };
}

function displayName(firstName: string | null, lastName: string): string {
  return firstName ? `${lastName}, ${firstName}` : lastName;
}

function spokenName(firstName: string | null, lastName: string): string {
  return firstName ? `${firstName} ${lastName}` : lastName;
}

export class ScreeningIndex {
  readonly entries: SanctionEntry[];
  readonly names: IndexedName[] = [];
  private readonly byUid = new Map<number, number>();
  private readonly namesOfEntry: number[][] = [];
  /** Dictionary of name parts (and whole names run together) → the names holding them. */
  private readonly postings = new Map<string, number[]>();
  /** Every name part and whole name run together, numbered: names' parts as numbers into it. */
  private readonly words: string[] = [];
  private readonly wordIds = new Map<string, number>();
  /**
   * Per name, its parts' word numbers, then its run-together word (or -1), then -2; `nameStart` gives where
   * each name begins. One flat array: forty thousand small arrays would cost more than their contents.
   */
  private nameWords = new Int32Array(0);
  private nameStart = new Int32Array(0);
  private building: number[] = [];
  /** Query word → names its prefilter keeps: given names and company words repeat across queries. */
  private readonly near = new Map<string, Int32Array>();
  private marks = new Uint8Array(0);
  /** First character → dictionary words starting with it, with their letter counts. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(entries: SanctionEntry[]) {
    this.entries = entries;
    for (const [e, entry] of entries.entries()) {
      this.byUid.set(entry.uid, e);
      const own: number[] = [];
      this.namesOfEntry.push(own);
      own.push(this.add(e, "primary", null, entry.firstName, entry.lastName));
      for (const alias of entry.aliases) {
        own.push(this.add(e, alias.kind, alias.category, alias.firstName, alias.lastName));
      }
    }
    this.marks = new Uint8Array(this.names.length);
    this.nameWords = Int32Array.from(this.building);
    this.building = [];
    this.nameStart = new Int32Array(this.names.length);
    for (let i = 0, n = 0; n < this.names.length; i++) {
      if (i === 0 || this.nameWords[i - 1] === -2) this.nameStart[n++] = i;
    }
    const grouped = new Map<string, string[]>();
    for (const word of this.postings.keys()) {
      const first = word[0] as string;
      const words = grouped.get(first);
      if (words) words.push(word);
      else grouped.set(first, [word]);
    }
    for (const [first, words] of grouped) {
      this.buckets.set(first, new Bucket(words, (w) => this.postings.get(w) as number[]));
    }
  }

  private add(
    entry: number,
    kind: NameKind,
    category: "strong" | "weak" | null,
    firstName: string | null,
    lastName: string,
  ): number {
    const normalised = normaliseName(spokenName(firstName, lastName));
    const id = this.names.length;
    this.names.push({
      entry,
      kind,
      category,
      display: displayName(firstName, lastName),
      ...normalised,
    });
    const words = new Set(normalised.tokens);
    if (normalised.compact !== "") words.add(normalised.compact);
    for (const word of words) {
      const list = this.postings.get(word);
      if (list) list.push(id);
      else this.postings.set(word, [id]);
    }
    for (const token of normalised.tokens) this.building.push(this.wordId(token));
    this.building.push(normalised.tokens.length > 1 ? this.wordId(normalised.compact) : -1);
    this.building.push(-2);
    return id;
  }

  private wordId(word: string): number {
    let id = this.wordIds.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.words.push(word);
      this.wordIds.set(word, id);
    }
    return id;
  }

  /**
   * Whether every part of the query (initials aside) is found in the name at `threshold` or better: the cheap
   * test that a name can still reach minScore, since a name never scores above its weakest part. Part scores
   * are kept per dictionary word in typed arrays (one per query part), so each pair is computed once.
   */
  private reachesEveryPart(
    parts: string[],
    memos: Float32Array[],
    nameId: number,
    threshold: number,
  ): boolean {
    const words = this.nameWords;
    const start = this.nameStart[nameId] as number;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p] as string;
      const memo = memos[p] as Float32Array;
      let found = false;
      for (let i = start; !found; i++) {
        const word = words[i] as number;
        if (word === -2) break;
        if (word === -1) continue;
        let s = memo[word] as number;
        if (Number.isNaN(s)) {
          s = partScore(part, this.words[word] as string);
          memo[word] = s;
        }
        found = s >= threshold;
      }
      if (!found) return false;
    }
    return true;
  }

  hasUid(uid: number): boolean {
    return this.byUid.has(uid);
  }

  get dictionarySize(): number {
    return this.postings.size;
  }

  /** Names with a part starting like a part of the query and at least half similar to it by edit distance. */
  prefilter(query: QueryName): number[] {
    const words = new Set(query.tokens);
    if (query.compact !== "") words.add(query.compact);
    const marks = this.marks;
    const candidates: number[] = [];
    for (const word of words) {
      for (const id of this.namesNear(word)) {
        if (marks[id] === 1) continue;
        marks[id] = 1;
        candidates.push(id);
      }
    }
    for (const id of candidates) marks[id] = 0;
    return candidates;
  }

  /** The names holding a word that passes the prefilter for `word`, remembered for the words asked most. */
  private namesNear(word: string): Int32Array {
    const cached = this.near.get(word);
    if (cached) {
      this.near.delete(word);
      this.near.set(word, cached);
      return cached;
    }
    const found = new Set<number>();
    this.buckets.get(word[0] as string)?.collect(word, found);
    const ids = Int32Array.from(found);
    if (this.near.size >= NEAR_CACHE_WORDS) this.near.delete(this.near.keys().next().value as string);
    this.near.set(word, ids);
    return ids;
  }

  /** Forgets the remembered prefilter answers (the benchmark measures cold queries with it). */
  forgetPrefilterCache(): void {
    this.near.clear();
  }

  screen(rawQuery: string, options: ScreeningOptions): ScreeningResult {
    const query = normaliseName(rawQuery);
    let ids: Iterable<number>;
    if (options.uid !== undefined) {
      const entry = this.byUid.get(options.uid);
      ids = entry === undefined ? [] : (this.namesOfEntry[entry] as number[]);
    } else {
      ids = this.prefilter(query);
    }
    // Part pairs repeat across names ("MOHAMMED" is in hundreds): each is scored once per query.
    const memo = new Map<string, Map<string, number>>();
    const memoScore: PartScorer = (q, t) => {
      let row = memo.get(q);
      if (!row) {
        row = new Map();
        memo.set(q, row);
      }
      let s = row.get(t);
      if (s === undefined) {
        s = partScore(q, t);
        row.set(t, s);
      }
      return s;
    };
    // Longest parts first: they are the rarest, so most names fail on the first one tested.
    const boundParts = query.tokens.filter((t) => t.length > 1).sort((a, b) => b.length - a.length);
    const threshold = options.minScore / 100;
    const boundMemos = boundParts.map(() => new Float32Array(this.words.length).fill(Number.NaN));
    const perEntry = new Map<number, { best?: NameMatch; weak: NameMatch[] }>();
    let namesScored = 0;
    for (const id of ids) {
      const name = this.names[id] as IndexedName;
      namesScored++;
      // The score never exceeds the weakest part's: most prefiltered names stop here, before any whole-name work.
      if (!isExact(query, name) && !this.reachesEveryPart(boundParts, boundMemos, id, threshold)) continue;
      const match = scoreName(query, name, memoScore);
      if (match.score < options.minScore) continue;
      let slot = perEntry.get(name.entry);
      if (!slot) {
        slot = { weak: [] };
        perEntry.set(name.entry, slot);
      }
      if (name.category === "weak") slot.weak.push(match);
      else if (!slot.best || match.score > slot.best.score) slot.best = match;
    }
    const hits: ScreeningHit[] = [];
    let weakAliasOnly = 0;
    for (const [entry, slot] of perEntry) {
      if (!slot.best) {
        weakAliasOnly++;
        continue;
      }
      slot.weak.sort((a, b) => b.score - a.score);
      hits.push({ entry: this.entries[entry] as SanctionEntry, best: slot.best, weakAliases: slot.weak });
    }
    hits.sort((a, b) => b.best.score - a.best.score || a.entry.uid - b.entry.uid);
    return { hits: hits.slice(0, options.limit), totalHits: hits.length, weakAliasOnly, namesScored };
  }

  /**
   * The baseline the benchmark compares with: every name scored, no prefilter, no memo. Returns the uids of
   * the entries that are hits (a primary name or strong alias reaching minScore).
   */
  bruteForce(rawQuery: string, minScore: number): Set<number> {
    const query = normaliseName(rawQuery);
    const hits = new Set<number>();
    for (const name of this.names) {
      if (name.category === "weak") continue;
      if (scoreName(query, name).score >= minScore) hits.add((this.entries[name.entry] as SanctionEntry).uid);
    }
    return hits;
  }

  /**
   * A rough size of what this index holds in memory (strings at two bytes a character plus a fixed cost per
   * object, array and map slot): for the status route, not an exact heap measurement.
   */
  approximateBytes(): number {
    if (this.bytes === undefined) this.bytes = this.measure();
    return this.bytes;
  }

  private bytes: number | undefined;

  private measure(): number {
    const stringBytes = (s: string | null) => (s === null ? 0 : 16 + s.length * 2);
    let bytes = 0;
    for (const name of this.names) {
      bytes += 80 + stringBytes(name.display) + stringBytes(name.text) + stringBytes(name.sorted);
      bytes += stringBytes(name.compact) + name.tokens.reduce((n, t) => n + 8 + stringBytes(t), 16);
    }
    for (const [word, ids] of this.postings) bytes += 48 + stringBytes(word) + 16 + ids.length * 8;
    bytes += this.byUid.size * 32 + this.nameWords.length * 4 + this.nameStart.length * 4;
    bytes += this.words.length * 16 + this.wordIds.size * 32;
    for (const entry of this.entries) bytes += 200 + JSON.stringify(entry).length * 2;
    return bytes;
  }
}

const SLOTS = 32;

/** A letter's slot in a word's letter counts; letters sharing a slot only loosen the bound, never break it. */
function slotOf(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return 26 + ((code - 48) % 5);
  return 31;
}

function countLetters(word: string, into: Uint8Array, offset: number): void {
  for (let i = 0; i < word.length; i++) {
    const slot = offset + slotOf(word.charCodeAt(i));
    if ((into[slot] as number) < 255) into[slot] = (into[slot] as number) + 1;
  }
}

/**
 * The dictionary words of one first letter. Before an edit distance is computed, a lower bound rules most
 * words out: the distance is at least the longer length less the letters the two words have in common.
 */
class Bucket {
  private readonly words: string[];
  private readonly postings: number[][];
  private readonly counts: Uint8Array;
  private readonly query = new Uint8Array(SLOTS);

  constructor(words: string[], postingsOf: (word: string) => number[]) {
    this.words = words;
    this.postings = words.map(postingsOf);
    this.counts = new Uint8Array(words.length * SLOTS);
    for (const [i, word] of words.entries()) countLetters(word, this.counts, i * SLOTS);
  }

  /** Adds the names holding a word at least 50 % similar to `word` by edit distance. */
  collect(word: string, into: Set<number>): void {
    const query = this.query;
    query.fill(0);
    countLetters(word, query, 0);
    const counts = this.counts;
    for (let i = 0; i < this.words.length; i++) {
      const candidate = this.words[i] as string;
      const longer = Math.max(word.length, candidate.length);
      if (Math.abs(word.length - candidate.length) * 2 > longer) continue;
      if (candidate !== word) {
        let common = 0;
        const base = i * SLOTS;
        for (let s = 0; s < SLOTS; s++) {
          const a = query[s] as number;
          if (a === 0) continue;
          const b = counts[base + s] as number;
          common += Math.min(a, b);
        }
        if ((longer - common) * 2 > longer) continue;
        if (editSimilarity(word, candidate) < 0.5) continue;
      }
      for (const id of this.postings[i] as number[]) into.add(id);
    }
  }
}
