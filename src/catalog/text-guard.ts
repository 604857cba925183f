// Characters no buyer's parameter needs and that can hide what a text says: NUL and the other C0 and C1
// controls, and the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069).

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

function isHidden(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const LINE_SEPARATOR = 0x2028;
const PARAGRAPH_SEPARATOR = 0x2029;

function findHidden(value: string, allowLineBreaks: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (!allowLineBreaks && (code === LINE_SEPARATOR || code === PARAGRAPH_SEPARATOR)) return true;
    if (!isHidden(code)) continue;
    if (allowLineBreaks && (code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN)) continue;
    return true;
  }
  return false;
}

/**
 * True when a one-line value (a search, a name, an id) carries any control character, line breaks included
 * (U+2028 and U+2029, Unicode's line and paragraph separators, too).
 */
export function hasControlCharacters(value: string): boolean {
  return findHidden(value, false);
}

/** True when pasted text (an error message, a header value) carries a control character other than tab or a line break. */
export function hasUnsafeCharacters(value: string): boolean {
  return findHidden(value, true);
}

export const CONTROL_CHARACTERS_MESSAGE =
  "must not contain control characters (NUL and other controls, or bidirectional overrides)";
