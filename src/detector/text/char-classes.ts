// Character classes shared by the rules, on UTF-16 code units (the unit `Trip.at` is counted in).

// Lazily filled: 0 = not computed, 1 = not a word character, 2 = letter or digit (any script).
const wordTable = new Uint8Array(65536)
const WORD_CHAR = /[\p{L}\p{N}]/u

/** A letter or digit of any script. */
export function isWordChar(code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122)
  let known = wordTable[code]
  if (known === 0) {
    known = WORD_CHAR.test(String.fromCharCode(code)) ? 2 : 1
    wordTable[code] = known
  }
  return known === 2
}

/**
 * Whether the char at `position` of `ring` (offset i at `i & mask`) is the letter of a white-space escape
 * written out (`\n`, `\r`, `\t`, its backslash just before it): white space in JSON text.
 */
export function endsWhiteEscape(ring: Uint16Array, mask: number, position: number): boolean {
  const code = ring[position & mask]
  return (code === 110 || code === 114 || code === 116) && position > 0 && ring[(position - 1) & mask] === 92
}

/**
 * A char a written sentence opens with besides a letter or digit: a quotation mark opening dialogue
 * (" ' “ ‘ ” „ ‚ « » ‹ › 「 『, as languages use them) or Spanish ¿ ¡. Fiction and answers quote
 * speech; such a sentence is prose, not markup (a loop of dialogue paragraphs in stories of the
 * longform-writing held-out sweep was read as marked text and never cut).
 */
export function isSentenceOpener(code: number): boolean {
  return code === 34 || code === 39 || code === 0x201c || code === 0x2018 || code === 0x201d || code === 0x201e
    || code === 0x201a || code === 0xab || code === 0xbb || code === 0x2039 || code === 0x203a
    || code === 0x300c || code === 0x300e || code === 0xbf || code === 0xa1
}

/** ( ) [ ] { } < > */
export function isBracket(code: number): boolean {
  return code === 40 || code === 41 || code === 91 || code === 93 || code === 123 || code === 125 || code === 60 || code === 62
}

export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

/** A letter of any script, CJK included (a word char that is not a digit). */
export function isLetter(code: number): boolean {
  return isWordChar(code) && !isDigit(code)
}

export function isAsciiLetter(code: number): boolean {
  const lower = code | 32
  return lower >= 97 && lower <= 122
}

export function isUpperAscii(code: number): boolean {
  return code >= 65 && code <= 90
}

export function isWhitespace(code: number): boolean {
  if (code < 0xa0) return code <= 32
  return code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200b)
    || code === 0x2028 || code === 0x2029 || code === 0xfeff
}

/** CJK characters and punctuation, one token each (the ranges dsh-loop-guard's tokenizer uses). */
export function isCjk(code: number): boolean {
  if (code < 0x3000) return false
  return code <= 0x30ff || (code >= 0x3400 && code <= 0x4dbf)
    || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xf900 && code <= 0xfaff)
    || (code >= 0xff00 && code <= 0xffef)
}

export function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code
}

// As int32 (`| 0`): the hashes stay small integers in registers and fields, never boxed doubles.
export const FNV_OFFSET = 0x811c9dc5 | 0
export const FNV_PRIME = 0x01000193

/**
 * `|` or `｜`: after `<` it opens (before `>` it closes) a chat-template token (`<|im_start|>`,
 * `<｜User｜>`), which a model leaking its template writes as prose, not markup.
 */
export function isTemplateBar(code: number): boolean {
  return code === 124 || code === 0xff5c
}
