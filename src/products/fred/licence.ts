// Which FRED series this service may sell. FRED republishes series owned by their sources; some owners
// (S&P, ICE, Moody's, ...) forbid redistribution without their permission. The rule, applied on every fetch:
//
//   A series is refused when
//     (a) its FRED tags include "copyrighted: pre-approval required" (FRED's own copyright classification), or
//     (b) its notes carry a copyright statement (Copyright, ©, "(c)") together with restriction language:
//         "permission", "pre-approval", "prohibited", "may not be reproduced/redistributed/resold",
//         "not for redistribution", or "all rights reserved".
//   Otherwise it is sold, with its copyright tag ("copyrighted: citation required", "public domain: citation
//   requested") and any copyright line of its notes repeated in the answer's notice.
//
// (b) is deliberately conservative: a notes text that asserts copyright and any restriction is refused even
// when FRED's tag would allow it, because the notes are the owner's own words.

export const PRE_APPROVAL_TAG = "copyrighted: pre-approval required";

const COPYRIGHT_MARK = /copyright|©|\(c\)\s*\d{4}/i;
const RESTRICTION =
  /permission|pre-?approval|prohibited|may not be (?:reproduced|redistributed|resold|distributed|copied)|not for (?:re)?distribution|all rights reserved/i;

type LicenceVerdict =
  | { sellable: true; copyright: string | null; citation: string | null }
  | { sellable: false; copyright: string | null; reason: string };

/** The copyright tag FRED gives the series (tags of group "cc"), if any. */
export function copyrightTag(tags: string[]): string | null {
  return tags.find((t) => /^(copyrighted|public domain)\b/.test(t)) ?? null;
}

/** The sentence of `notes` that states a copyright, trimmed to a readable length. */
function copyrightSentence(notes: string): string | null {
  const sentences = notes.replace(/\s+/g, " ").split(/(?<=\.)\s+/);
  const found = sentences.find((s) => COPYRIGHT_MARK.test(s));
  return found ? found.trim().slice(0, 300) : null;
}

export function licenceVerdict(seriesId: string, notes: string, tags: string[]): LicenceVerdict {
  const copyright = copyrightTag(tags);
  if (tags.includes(PRE_APPROVAL_TAG)) {
    return {
      sellable: false,
      copyright,
      reason: `FRED classifies ${seriesId} as "${PRE_APPROVAL_TAG}": its owner forbids redistribution without prior approval, so this service does not resell it.`,
    };
  }
  const flat = notes.replace(/\s+/g, " ");
  if (COPYRIGHT_MARK.test(flat) && RESTRICTION.test(flat)) {
    const sentence = copyrightSentence(flat);
    return {
      sellable: false,
      copyright,
      reason: `The notes of ${seriesId} restrict its reproduction${sentence ? ` ("${sentence}")` : ""}, so this service does not resell it.`,
    };
  }
  return { sellable: true, copyright, citation: copyrightSentence(flat) };
}
