// What makes text look like data or quoted tool output rather than prose, the confidence notion of
// docs/detector.md#confidence: the unit rules (units.ts) and the exact rules (cycle.ts, token-period.ts)
// ask such text for more evidence. List markers and quotes open prose, so they are no symbols here.

import { isAsciiLetter, isDigit, isLetter, isSentenceOpener, isTemplateBar, isWhitespace, isWordChar } from './char-classes.ts'

/** A line of code or data ends in one of ; { } ( ) [ ] , = > | \ (prose ends in a letter or . ! ? : 。). */
export function endsLikeCode(code: number): boolean {
  return code === 59 || code === 123 || code === 125 || code === 40 || code === 41 || code === 91 || code === 93
    || code === 44 || code === 61 || code === 62 || code === 124 || code === 92
}

const FULLWIDTH_COMMA = 0xff0c
const FULLWIDTH_SEMICOLON = 0xff1b
const IDEOGRAPHIC_COMMA = 0x3001

/**
 * A line ending with a CJK comma or semicolon continues on the next line, as one ending with `,` or
 * `;` does (`endsLikeCode`): a verse or a list item, not a sentence. Without it a Chinese cumulative
 * song (each verse restating the ones before) was prose and cut by novelty where the English one,
 * its lines ending with `,`, was not (test/detector/field-shapes.test.ts).
 */
export function continuesLikeVerse(code: number): boolean {
  return code === FULLWIDTH_COMMA || code === FULLWIDTH_SEMICOLON || code === IDEOGRAPHIC_COMMA
}

/** A line opening with this char is code, data or a log line: not a letter or digit, a quote, or a list marker. */
export function opensLikeData(code: number): boolean {
  if (isWordChar(code)) return false
  return !(isSentenceOpener(code) || code === 40 || code === 45 || code === 42 || code === 43 || code === 0x2022
    || code === 0xff08 || code === 0x3010)
}

// Markup a plain sentence has none of: ` * _ # | @ / \ (code spans, emphasis, headings, tables,
// mentions, paths and URLs), but `*` around a word (`isMarkupIn`). Brackets and operators are the
// tokenizer's code marks (`Token.codeMarks`).
const MARKUP = new Uint8Array(128)
for (const char of '`*_#|@/\\') MARKUP[char.charCodeAt(0)] = 1

/**
 * A char of markup: documentation (an API reference, a changelog of links, a table) repeats its
 * wording legitimately and always carries some; a model talking to itself in sentences does not.
 */
function isMarkupChar(code: number): boolean {
  return code < 128 && MARKUP[code] === 1
}

const STAR = 42

/**
 * A char of markup at an edge of a token holding `letters` letters. `*` around a word is emphasis,
 * which models write in their prose as in their dialogue (`What if you're *right*?`, `**Note:**`): a
 * longform-writing held-out sweep found chapters of Qwen3 4B replaying paragraphs of emphasised
 * dialogue with a word swapped that no level read, while the real-output corpus, the npm corpus and
 * the shapes give the same verdicts either way. Alone (a list bullet, a rule) `*` stays markup.
 */
export function isMarkupIn(code: number, letters: number): boolean {
  return isMarkupChar(code) && !(code === STAR && letters > 0)
}

const MIN_BLOB_CHARS = 24
const COMMA = 44
const COLON = 58
const QUOTE = 34
const APOSTROPHE = 39

/**
 * `separator` between `before` and `after` (then `afterNext`) with no space after it is a data
 * separator: a comma between two values that are not both digits (a CSV row's "sit,42,ABC"; "1,000" is
 * a number), a colon between two quotes (compact JSON's `"key":"value"`). Prose puts a space after its
 * commas, or a closing quote and then the space (`"The Sopranos," "Dexter,"`: a list of titles in
 * American style, which read as data kept a real loop of them uncut). `afterNext` 0: not read yet
 * (the separator counts).
 */
export function isTightSeparator(before: number, separator: number, after: number, afterNext: number): boolean {
  return separator === COMMA ? !isWhitespace(after) && !(isDigit(before) && isDigit(after)) && !(isClosingQuote(after) && afterNext !== 0 && isWhitespace(afterNext))
    : separator === COLON && before === QUOTE && after === QUOTE
}

/** Whether the char at offset `i` of `ring` follows a data separator (`isTightSeparator`); past `to` nothing is read yet. */
function tightSeparatorAt(ring: Uint16Array, mask: number, i: number, to: number): boolean {
  return isTightSeparator(ring[(i - 2) & mask], ring[(i - 1) & mask], ring[i & mask], i + 1 < to ? ring[(i + 1) & mask] : 0)
}

/** A quote a quotation may close with (straight or curly, double or single). */
export function isClosingQuote(code: number): boolean {
  return code === QUOTE || code === APOSTROPHE || code === 0x201d || code === 0x2019
}

/** Two in a line: a CSV row of three fields, a pair of compact JSON (`"a":"x",`); a typo is one. */
export const MIN_TIGHT_SEPARATORS = 2

/**
 * Spaces a stretch may hold per data separator and still be data: a CSV row's values hold a word or
 * two (`New York City,New York,United States`), a sentence one space a word. A paragraph naming
 * squares as `(2,A)` and `(3,C)` read as a CSV row and waited for the data span when said again.
 */
const MAX_SPACES_PER_SEPARATOR = 3

/** Whether `separators` data separators make a stretch holding `spaces` spaces data (two or more, and not a sentence's worth of spaces). */
function separatedLikeData(separators: number, spaces: number, rows: number): boolean {
  return separators >= MIN_TIGHT_SEPARATORS * rows && spaces <= MAX_SPACES_PER_SEPARATOR * separators
}

/**
 * Whether the text at offsets [from, to) of `ring` (offset i at `i & mask`) looks like data: a line
 * in it opens or ends like data, it is an ASCII blob without a space, or fewer than half of its
 * non-space characters are letters.
 */
export function stretchLooksLikeData(ring: Uint16Array, mask: number, from: number, to: number): boolean {
  let letters = 0
  let nonSpace = 0
  let lastNonSpace = 0
  let afterBreak = false
  let spaces = 0
  let nonAscii = 0
  let tightSeparators = 0
  for (let i = from; i < to; i++) {
    const code = ring[i & mask]
    if (i >= from + 2 && tightSeparatorAt(ring, mask, i, to) && ++tightSeparators >= MIN_TIGHT_SEPARATORS) return true
    // In tool arguments a line break arrives JSON-escaped, as the two chars \n.
    const escapedBreak = code === 92 && i + 1 < to && ring[(i + 1) & mask] === 110
    if (code === 10 || code === 13 || escapedBreak) {
      if (escapedBreak) i++
      if (endsLikeCode(lastNonSpace)) return true
      afterBreak = true
      continue
    }
    if (afterBreak) {
      afterBreak = false
      if (isWhitespace(code) || opensLikeData(code)) return true
    }
    if (isWhitespace(code)) {
      spaces++
      continue
    }
    if (code > 127) nonAscii++
    nonSpace++
    lastNonSpace = code
    if (isLetter(code)) letters++
  }
  // ASCII without a single space over a whole period: a blob (source-map mappings, base64, minified code).
  if (spaces === 0 && nonAscii === 0 && to - from >= MIN_BLOB_CHARS) return true
  return letters * 2 < nonSpace
}

/** What a repeated stretch holds when it is rows of values (`valueRowKind`). */
export const enum ValueRow {
  /** Not rows of values: words, tags or JSON keys repeated. */
  None = 0,
  /** Values alone: words (two letters or more) make under a quarter of it (`0 0 0`, `❌❌❌`, a matrix row). */
  Values = 1,
  /** Copies of one row of a table or a record list (two tight separators, two `|` in a row that opens or closes with one, a bracketed record). */
  Record = 2,
  /**
   * Values joined by operators (`90+82`, `C=2,M=3`, `A+1 K+1`, a LaTeX derivation's rows: + * = / ^ × ÷):
   * expressions, assignments, moves. No real answer writes them again verbatim: they are cut as prose.
   */
  Expressions = 3,
  /**
   * Symbols in one line, more letters than digits and no line break in the period (`U U F F`,
   * `R U R' U'`, `['d', 'd', 'v']`, `"B,C2,A1"`): a sequence of moves or symbols said again. A board or
   * a matrix repeats its rows, so its period holds line breaks; numbers in one line are a vector or a
   * drawing (an SVG path's relative coordinates repeat shape after shape).
   */
  Sequence = 4,
}

/**
 * Whether the text at offsets [from, to) of `ring` is rows of values, and which kind. A model writes
 * those on purpose many times over; different lines holding words, tags or JSON keys repeated back to
 * back are a loop whatever their markup.
 */
export function valueRowKind(ring: Uint16Array, mask: number, from: number, to: number): ValueRow {
  let firstBreak = -1
  let rowLength = 0
  let letterRun = 0
  let wordLetters = 0
  let letters = 0
  let digits = 0
  let nonSpace = 0
  let pipes = 0
  let tightSeparators = 0
  let spaces = 0
  let recordOpeners = 0
  let closers = 0
  let tags = 0
  let operators = 0
  // A table row opens or closes its line with `|` (markdown's `| a | b |`); `|` inside a line of code is an
  // operator (`RED | GREEN | BLUE`, a shell pipe), and a real loop of such a line waited for the data span.
  let tableEdge = false
  let lastNonSpace = 0
  let afterBreak = false
  for (let i = from; i < to; i++) {
    const code = ring[i & mask]
    if (code === 10) {
      if (lastNonSpace === 124) tableEdge = true
      afterBreak = true
    } else if (!isWhitespace(code)) {
      if (afterBreak && code === 124) tableEdge = true
      afterBreak = false
      lastNonSpace = code
    }
    // The stretch repeats what precedes it, so a separator at its start is read across its edge.
    if (tightSeparatorAt(ring, mask, i, to)) tightSeparators++
    // In tool arguments a line break arrives JSON-escaped, as the two chars \n.
    if (code === 10 || (code === 92 && i + 1 < to && ring[(i + 1) & mask] === 110)) {
      if (firstBreak === -1) firstBreak = i
      else if (rowLength === 0) rowLength = i - firstBreak
    }
    if (!isWhitespace(code)) nonSpace++
    else if (code !== 10 && code !== 13) spaces++
    if (code === 124) pipes++
    if (code === 43 || code === 42 || code === 61 || code === 47 || code === 94 || code === 0xd7 || code === 0xf7) operators++
    if ((code === 123 || code === 91) && opensRecord(ring[(i - 1) & mask])) recordOpeners++
    else if (code === 125 || code === 93) closers++
    // The stretch repeats back to back: the char after its last is its first.
    else if (code === 60 && opensTag(ring[(i + 1 < to ? i + 1 : from) & mask])) tags++
    if (isDigit(code)) digits++
    if (isLetter(code)) {
      letters++
      letterRun++
      // A CJK character is a word by itself; a run of two letters or more is a word (its first letter counts now).
      if (code >= 0x2e80) wordLetters++
      else if (letterRun === 2) wordLetters += 2
      else if (letterRun > 2) wordLetters++
    } else {
      letterRun = 0
    }
  }
  // Values alone: a word now and then (an SVG path's `zm`, a unit) among mostly numbers and marks. A
  // board or a matrix joins its values by spaces, commas and brackets; an operator makes them an
  // expression, an assignment or a move, which real answers do not write again past the cycle span. A
  // tag is markup no board holds: values in `<answer>` tags said again are an answer block restated.
  if (wordLetters * 4 < nonSpace && tags === 0) {
    return operators > 0 ? ValueRow.Expressions : firstBreak === -1 && letters > digits ? ValueRow.Sequence : ValueRow.Values
  }
  // Several lines: copies of one row only (the stretch repeats with the distance between its breaks).
  if (rowLength > 0) {
    for (let i = from; i + rowLength < to; i++) if (ring[i & mask] !== ring[(i + rowLength) & mask]) return ValueRow.None
  }
  const rows = rowLength > 0 ? Math.max(1, Math.round((to - from) / rowLength)) : 1
  // Brackets make a record when a row opens and closes one, and then only as a list's item when the
  // row spans a line break (a JSON object said again line after line with no comma is no list), or with
  // no tag when it does not (`<tool_call>{...}</tool_call>` said again is markup).
  const bracketed = recordOpeners >= rows && closers >= rows && (firstBreak === -1 ? tags === 0 && heldInRecords(ring, mask, from, to)
    : repeatsOneListItem(ring, mask, to - (rowLength > 0 ? rowLength : shortestPeriod(ring, mask, from, to)), to))
  return separatedLikeData(tightSeparators, spaces, rows) || (tableEdge && pipes >= 2 * rows) || bracketed ? ValueRow.Record : ValueRow.None
}

/**
 * Whether records (brackets `opensRecord` accepts) hold at least half of the line at [from, to), read
 * with the copy before it, so a record across the period's edge counts whole. A record said again in
 * one line is mostly its brackets' content; a paragraph that names a set or an interval in passing
 * (`the subset {1,6} is 11`, `in the closed interval [-500,500]`, `['gay', 'isa', 'eyes'] is`) is
 * prose: three real answers restating such a paragraph in one line (ZeroEval, MATH level 5 and CRUXEval
 * outputs) waited for the data span, 2,000 to 5,000 chars past the bound.
 */
function heldInRecords(ring: Uint16Array, mask: number, from: number, to: number): boolean {
  // One bit per open bracket, innermost lowest: whether it opened a record.
  let stack = 0
  let height = 0
  let recordDepth = 0
  let held = 0
  for (let i = from - (to - from); i < to; i++) {
    const code = ring[i & mask]
    if (code === 123 || code === 91) {
      const record = opensRecord(ring[(i - 1) & mask])
      if (height < MAX_BRACKET_DEPTH) {
        stack = (stack << 1) | (record ? 1 : 0)
        height++
        if (record) recordDepth++
      }
    } else if ((code === 125 || code === 93) && height > 0) {
      if (i >= from && recordDepth > 0) held++
      if (stack & 1) recordDepth--
      stack >>>= 1
      height--
      continue
    }
    if (i >= from && recordDepth > 0) held++
  }
  return 2 * held >= to - from
}

/** Brackets nested deeper than this are not followed (`heldInRecords` keeps one bit per level). */
const MAX_BRACKET_DEPTH = 30

/** A `<` before this char opens a tag (`<tool_call>`, `</answer>`): markup, which a list of records never holds. */
export function opensTag(next: number): boolean {
  return next === 47 || isAsciiLetter(next)
}

/**
 * The shortest period of the text at [from, to): token-period hands over a block of several copies
 * (two records and the line break between them), which is one list item only when read copy by copy.
 */
function shortestPeriod(ring: Uint16Array, mask: number, from: number, to: number): number {
  for (let period = 1; period < to - from; period++) {
    let i = from
    while (i + period < to && ring[i & mask] === ring[(i + period) & mask]) i++
    if (i + period >= to) return period
  }
  return to - from
}

/**
 * Whether a `{` or `[` after this char opens a record or a list (after a space, a line break, `:`, `,`,
 * `(`, `=`), not an argument, an index or a scope: after a letter or a digit (`\frac{`, `\sqrt{`, `a[0]`),
 * a closing brace (`\frac{1}{2}`), a closing parenthesis (`f(x)[i]`, a quantifier's scope `(∀x){...}`),
 * `^`, `_` or `\` (`x^{2}`, `a_{n}`, `\[`). LaTeX read as a bracketed record waited for the data span: a
 * real loop of `= \sqrt{2 + \sqrt{3}}` (arena-hard-auto, GPT-3.5) was cut 6,100 chars after its onset, and
 * `\boxed{42}` said again 600 times was not cut at all; "We can rewrite it as (∀x){Ax ⊃ (∀y)[...]}."
 * said again for 3.9 K (MMLU-Pro, Llama 3.1 70B) was not cut either. No JSON puts a record after `)`.
 */
function opensRecord(before: number): boolean {
  return !(isWordChar(before) || before === 125 || before === 93 || before === 41 || before === 94 || before === 95 || before === 92)
}

/**
 * A line ending with `\]`, `\)` or `\\` closes LaTeX math (a display, an inline formula, a row of an
 * aligned derivation): what a model writes in its reasoning and answers, not code, whose repetition
 * waited for codeMinPeriods copies.
 */
function closesMath(before: number, last: number): boolean {
  return before === 92 && (last === 93 || last === 41 || last === 92)
}

/** The fewest words of a line of verse (`stretchIsCode`): a list of identifiers holds one a line. */
const MIN_VERSE_WORDS = 3

/**
 * The fewest words (runs of letters: a LaTeX row's one-letter variables count too) of a line that is a
 * sentence whatever it ends with: a line of code holds a dozen at most, its strings included.
 */
const MIN_SENTENCE_WORDS = 16

/**
 * The fewest words of a list item (`* `, `- `, `• `, `1. `) that closes a parenthesis as an aside:
 * `* Pictures of different types of friends (best friend, classmate, coworker, etc.)` in a lesson
 * plan said again waited for codeMinPeriods copies.
 */
const MIN_LIST_ITEM_WORDS = 6

/** Whether the line whose first non-space char is at offset `i` opens with a list marker and a space. */
function opensListItem(ring: Uint16Array, mask: number, i: number, to: number): boolean {
  const code = ring[i & mask]
  if (code === 42 || code === 45 || code === 0x2022) return i + 1 < to && ring[(i + 1) & mask] === 32
  let end = i
  while (end < to && isDigit(ring[end & mask])) end++
  return end > i && end + 1 < to && (ring[end & mask] === 46 || ring[end & mask] === 41) && ring[(end + 1) & mask] === 32
}

/** Marks a line of words alone may hold: the apostrophe and hyphen of a word, a comma, a stop, `!`, `?`, `;`. */
function isProseMark(code: number): boolean {
  return code === APOSTROPHE || code === 45 || code === COMMA || code === 46 || code === 33 || code === 63 || code === 59 || code === 0x2019
}

/**
 * Whether the text at offsets [from, to) of `ring` is code or structured data: half its lines or more
 * end like code (a closing tag's `>` does not), or it holds two tight separators; and it holds no
 * chat-template token (`<|im_end|>`: a model leaking its template writes prose).
 */
export function stretchIsCode(ring: Uint16Array, mask: number, from: number, to: number): boolean {
  let lines = 0
  let codeLines = 0
  let tightSeparators = 0
  let spaces = 0
  let lastNonSpace = 0
  let beforeLastNonSpace = 0
  // The line so far: its words, whether it is words alone (letters, spaces and a prose mark) and indented.
  let words = 0
  let inWord = false
  let wordsAlone = true
  let indented = isWhitespace(ring[from & mask])
  // Whether the line opens with a list marker, read at its first non-space char (`lastNonSpace` still 0).
  let listItem = false
  for (let i = from; i < to; i++) {
    const code = ring[i & mask]
    if ((code === 60 && isTemplateBar(ring[(i + 1) & mask])) || (code === 62 && isTemplateBar(ring[(i - 1) & mask]))) return false
    if (tightSeparatorAt(ring, mask, i, to)) tightSeparators++
    if (code === 10) {
      lines++
      // A line of three words or more alone that ends with a comma is a line of verse, not code: a
      // poem restated verbatim waited for codeMinPeriods copies (two real AlpacaEval loops, cut late).
      const verse = lastNonSpace === COMMA && wordsAlone && words >= MIN_VERSE_WORDS && !indented
      // A line of many words is a sentence, whatever closes it: a JSON answer's `"reasoning": "..."`,
      // restated, waited for codeMinPeriods copies (ZeroEval); and a list item closing a parenthesis is
      // an aside (`(Amazon rating: 4.8 stars out of 5)`), not a call: a real product list said again waited too.
      const sentence = words >= MIN_SENTENCE_WORDS || (lastNonSpace === 41 && listItem && words >= MIN_LIST_ITEM_WORDS)
      if (endsLikeCode(lastNonSpace) && lastNonSpace !== 62 && !verse && !sentence && !closesMath(beforeLastNonSpace, lastNonSpace)) codeLines++
      lastNonSpace = 0
      beforeLastNonSpace = 0
      words = 0
      inWord = false
      wordsAlone = true
      listItem = false
      indented = i + 1 < to && isWhitespace(ring[(i + 1) & mask])
    } else if (!isWhitespace(code)) {
      if (lastNonSpace === 0) listItem = opensListItem(ring, mask, i, to)
      beforeLastNonSpace = lastNonSpace
      lastNonSpace = code
      if (isLetter(code)) {
        if (!inWord) words++
        inWord = true
      } else {
        inWord = false
        if (!isProseMark(code)) wordsAlone = false
      }
    } else {
      inWord = false
      if (code !== 13) spaces++
    }
  }
  if (separatedLikeData(tightSeparators, spaces, 1)) return true
  return lines > 0 && codeLines * 2 >= lines
}

/**
 * Whether the text at offsets [from, to) of `ring`, a period repeated back to back, is one item of a
 * list: outside its one bracketed group (read at the period's lowest bracket depth, strings skipped)
 * there is nothing but a comma. A list of equal records is a file quoted whole (a locale table's
 * records repeated over 3-4 K chars of the npm corpus); a block that cycles several items, or one
 * bracketed block written again with no list around it (a JSON answer restated), is not one item.
 */
export function repeatsOneListItem(ring: Uint16Array, mask: number, from: number, to: number): boolean {
  // Read from a line's start, so as not to begin inside a string: the block repeats back to back, so
  // the chars after its first line break followed by those up to it are the same block, rotated.
  let lineBreak = from
  while (lineBreak < to && ring[lineBreak & mask] !== 10) lineBreak++
  if (lineBreak === to) return false
  const period = to - from
  let depth = 0
  let lowest = 0
  let inString = false
  // What stands at the lowest depth reached so far: groups opening, a comma, anything else.
  let opensAtLowest = 0
  let commaAtLowest = false
  let otherAtLowest = false
  for (let n = 1; n <= period; n++) {
    const i = lineBreak + n < to ? lineBreak + n : lineBreak + n - period
    const code = ring[i & mask]
    if (inString) {
      if (code === QUOTE && ring[(i - 1) & mask] !== 92) inString = false
      continue
    }
    if (code === 123 || code === 91 || code === 40) {
      if (depth === lowest) opensAtLowest++
      depth++
    } else if (code === 125 || code === 93 || code === 41) {
      depth--
      if (depth < lowest) {
        // A new lowest level: what was counted stood inside a group of it.
        lowest = depth
        opensAtLowest = 0
        commaAtLowest = false
        otherAtLowest = false
      }
    } else if (depth === lowest && !isWhitespace(code)) {
      if (code === COMMA) commaAtLowest = true
      else otherAtLowest = true
      if (code === QUOTE) inString = true
    } else if (code === QUOTE) {
      inString = true
    }
  }
  return depth === 0 && opensAtLowest === 1 && commaAtLowest && !otherAtLowest
}

/** The spans a block repeated back to back must reach, by what it holds (docs/detector.md#confidence). */
export interface DataSpans {
  /** Span (chars) of a block that looks like data; 0: as prose. */
  readonly dataMinSpan: number
  /** Span in reasoning and visible text of a block of values alone (`ValueRow.Values`); 0: as prose. */
  readonly valuesMinSpan: number
  /**
   * Whether every data-like block is data (the tool side: files are written on purpose), or only a row
   * of values or a table row (reasoning and visible text: `valueRowKind`).
   */
  readonly writesData: boolean
  /** Periods a block of code or structured data (`stretchIsCode`) must span in reasoning and visible text; 0: like prose. */
  readonly codeMinPeriods: number
}

/**
 * The span a block repeated back to back at [from, to) of `ring` must reach before it is cut (0: prose,
 * cut now). The tool side's test also reads the `context` chars before the block (a line break there
 * shows it opens a line) and asks `lineOpensLikeData`, a rule's own reading of the block's line.
 */
export function dataSpanOf(spans: DataSpans, ring: Uint16Array, mask: number, from: number, to: number, context = 0,
  lineOpensLikeData?: () => boolean): number {
  if (spans.writesData) {
    const data = stretchLooksLikeData(ring, mask, from - context, to) || (lineOpensLikeData !== undefined && lineOpensLikeData())
    return data ? spans.dataMinSpan : 0
  }
  const row = valueRowKind(ring, mask, from, to)
  if (row !== ValueRow.None) return valueRowSpan(spans, row, to - from)
  if (!stretchIsCode(ring, mask, from, to)) return 0
  if (repeatsOneListItem(ring, mask, from, to)) return spans.dataMinSpan
  return copiesSpan(spans, to - from)
}

/** The span of a block of `period` chars repeated back to back that is rows of values of kind `row`. */
export function valueRowSpan(spans: DataSpans, row: ValueRow, period: number): number {
  if (row === ValueRow.Values) return spans.valuesMinSpan
  // Counted in copies as code (4.5), an expression said again with a period over ~220 chars was cut past
  // the bound: 16 real loops of the judged sources and 6 of ZeroEval (LaTeX sums restated row by row,
  // countdown attempts) were cut late or not at all. At the cycle span no real normal of 105,224
  // (ZeroEval's MATH and GSM8K answers among them), no npm document and no GAOKAO answer trips.
  if (row === ValueRow.Expressions) return 0
  // A long symbol sequence waits no longer than values do.
  if (row === ValueRow.Sequence) return Math.min(copiesSpan(spans, period), spans.valuesMinSpan)
  return spans.dataMinSpan
}

/** The span of code written again: `codeMinPeriods` copies (spans count the chars after the first copy). */
function copiesSpan(spans: DataSpans, period: number): number {
  return Math.max(0, Math.ceil((spans.codeMinPeriods - 1) * period))
}
