// symbol run: one punctuation mark, symbol, emoji or one-letter token repeated without end, in any
// script ("。。。。", "! ! ! !", "😀😀😀", "的的的的"), or two letters alternating ("ok ok ok", "好的好的"),
// white space between allowed. The cycle rule lets periods of one distinct letter through, token-period
// wants 3 distinct tokens and identical-chunks sees such a run only in equal deltas; this rule reads the
// text one stride at a time, so its verdict is the same for any delta sizes.
// Dividers, padding, closers and laughter run long in real writing and wait for `dividerMinChars`, as
// does white space alone, every other unit trips at `minChars`, a grid of one symbol waits for the data
// span: the classes and the corpus's longest runs are in docs/detector.md#symbol-run.
// Deliberately let through: every shorter run, alternations holding a non-letter ("0, 0, 0", "-=-="),
// alternations of three or more units. "hahaha" holds two distinct letters: the cycle rule cuts it.
// Cost: a stride is read backwards only as far as the runs reaching its end, two or three chars in
// normal text; memory: a few numbers.

import { endsWhiteEscape, isBracket, isLetter, isWhitespace, lowerAscii } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'

const VARIATION_SELECTOR = 0xfe0f
const ZERO_WIDTH_JOINER = 0x200d
const BACKSLASH = 92
const LINE_FEED = 10
/** Units per line break from which a run across lines is a grid (a board's row holds several cells). */
const GRID_MIN_ROW_UNITS = 4
const LETTER_N = 110

// Units that legitimately run long: dividers and rules, padding, closers of nested code, laughter.
const LONG_ASCII = new Uint8Array(128)
for (const char of '-=_*#~^/+|\\%0()[]{}<>wk5') LONG_ASCII[char.charCodeAt(0)] = 1
const LONG_OTHER = new Set([...'·•–—―ー・～〜－＝＿ｗ哈呵嘿嘻草笑ㅋㅎ'].map((char) => char.charCodeAt(0)))

function isLongUnit(char: number): boolean {
  if (char < 128) return LONG_ASCII[char] === 1
  return (char >= 0x2500 && char <= 0x259f) || LONG_OTHER.has(char)
}

/** A letter of the BMP (not a digit): the units a two-letter token alternates. */
function isBmpLetter(char: number): boolean {
  return char < 0x10000 && isLetter(char)
}

/**
 * The offset of the last char in [from, to) that is neither white space nor a white-space escape (`\n`,
 * `\r`, `\t`: tool arguments, or a JSON answer written in the text), or -1. White space alone, whatever
 * its mix, is padding and trips at the divider span (but for its escapes on the reasoning and text
 * sides: `scan`): four real loops of the real-output corpus wrote nothing but spaces or line breaks for
 * 14 K to 57 K chars; the longest white space in a real normal is a table cell padded with 1,216
 * spaces (AlpacaEval, Claude 3 Opus).
 */
function lastInk(ring: Uint16Array, mask: number, from: number, to: number): number {
  for (let position = to - 1; position >= from; position--) {
    const code = ring[position & mask]
    if (isWhitespace(code) || code === VARIATION_SELECTOR || code === ZERO_WIDTH_JOINER) continue
    if (endsWhiteEscape(ring, mask, position)) {
      position--
      continue
    }
    // At the stride's end a backslash may open an escape that the next stride ends.
    if (code === BACKSLASH && position === to - 1) continue
    return position
  }
  return -1
}

/**
 * How many chars of [from, to) are white-space escapes written out (`\n`, `\t`, `\r`, two chars each);
 * an escape whose letter opens the range counts, as its backslash closed the stride before.
 */
function escapeChars(ring: Uint16Array, mask: number, from: number, to: number): number {
  let chars = 0
  for (let position = from; position < to; position++) if (endsWhiteEscape(ring, mask, position)) chars += 2
  return chars
}

/** The finding of a run from `start` to the stride's end `to`, once it spans `minChars` (0: never). */
function runFinding(start: number, to: number, minChars: number): RuleFinding | undefined {
  const span = to - start
  if (minChars === 0 || span < minChars) return undefined
  return { rule: 'symbol-run', loopStart: start, repeatedChars: span, verifiedAt: to }
}

export interface SymbolRunThresholds {
  /** Span (chars) of a run of a unit that never runs long in writing; 0 turns the rule off. */
  readonly minChars: number
  /** Span (chars) of a run of a divider, padding, closer or laughter unit; 0: such runs never trip. */
  readonly dividerMinChars: number
  /**
   * Span (chars) of a run across two line breaks or more with several units a line: a grid of one
   * symbol (`❌❌❌` rows, a board of `. . .`) is an answer written on purpose, so it needs the data span;
   * 0 judges it as any other run.
   */
  readonly gridMinChars: number
}

export class SymbolRunRule {
  /**
   * The run reaching the end of the last stride: its period (0: none, 1: one unit, 2: two letters
   * alternating), the unit at its end, the other unit of a pair, and where the run began.
   */
  private period = 0
  private last = -1
  private other = -1
  private runStart = 0
  /** Line breaks and units inside the run so far. */
  private runBreaks = 0
  private runUnits = 0
  /** Where the white space reaching the end of the last stride began (the side's start while all of it is). */
  private blankStart = 0
  /** Chars of white-space escapes written out in that white space, reasoning and text sides only (`scan`). */
  private blankEscapeChars = 0

  /** `jsonText`: the tool side, whose line breaks arrive JSON-escaped (`\n` counts as white space). */
  constructor(private readonly thresholds: SymbolRunThresholds, private readonly jsonText: boolean) {}

  /** Reads the stride at offsets [from, to) of `ring` backwards, as far as the runs reaching its end: one long enough to trip covers whole strides. */
  scan(ring: Uint16Array, mask: number, from: number, to: number): RuleFinding | undefined {
    if (this.thresholds.minChars === 0) return undefined
    const ink = lastInk(ring, mask, from, to)
    // White space is padding, but on the reasoning and text sides an escape written out (`\n\n\n`) is
    // text the model types, a unit like any other: a run holding `minChars` chars of them trips there.
    // Real normals hold at most 8 such chars in one run of white space, the npm corpus 52 (`\r\r\r`);
    // ZeroEval's Gemma 2 answers wrote them for 3-4 K chars, each cut 550 chars past the bound before.
    if (ink >= 0) {
      this.blankStart = ink + 1
      this.blankEscapeChars = this.jsonText ? 0 : escapeChars(ring, mask, ink + 1, to)
    } else {
      if (!this.jsonText) this.blankEscapeChars += escapeChars(ring, mask, from, to)
      const { minChars, dividerMinChars } = this.thresholds
      const blank = runFinding(this.blankStart, to, this.blankEscapeChars >= minChars ? minChars : dividerMinChars)
      if (blank) return blank
    }
    // c0: the unit at the stride's end; c1: the one before it. Run 1 repeats c0, run 2 alternates c0, c1.
    let c0 = -1
    let c1 = -1
    let seen = 0
    let start1 = to
    let start2 = to
    let alive1 = true
    let alive2 = false
    // The unit at the earliest position of run 2, so a pair continues only in phase.
    let first2 = -1
    // Line breaks and units inside each candidate run. A break read while a run is alive is pending
    // until a unit of the run comes before it: the blank line that opens a paragraph of "!!!!" is no
    // row of a grid (counted, it made every run opening a paragraph wait for the grid span).
    let breaks1 = 0
    let breaks2 = 0
    let pending1 = 0
    let pending2 = 0
    let units1 = 0
    let units2 = 0
    for (let position = to - 1; position >= from; position--) {
      const code = ring[position & mask]
      if (code === LINE_FEED) {
        if (alive1) pending1++
        if (alive2 || seen < 2) pending2++
      }
      if (isWhitespace(code) || code === VARIATION_SELECTOR || code === ZERO_WIDTH_JOINER) continue
      // In JSON a lone backslash opens the escape after it, but `\\` is a backslash the model wrote: a
      // unit like any other (read as an opener, a run of them in tool arguments was never cut).
      if (this.jsonText && code === BACKSLASH) {
        if (position === 0 || ring[(position - 1) & mask] !== BACKSLASH) continue
        position--
      }
      // The char before `from` is still in the ring: an escape or a surrogate pair may straddle strides.
      if (this.jsonText && endsWhiteEscape(ring, mask, position)) {
        if (code === LETTER_N) {
          if (alive1) pending1++
          if (alive2 || seen < 2) pending2++
        }
        position--
        continue
      }
      // Half of an astral char at the stride's end: its other half comes with the next stride.
      if (code >= 0xd800 && code <= 0xdbff && position === to - 1) continue
      let char = lowerAscii(code)
      if (code >= 0xdc00 && code <= 0xdfff && position > 0) {
        const high = ring[(position - 1) & mask]
        if (high >= 0xd800 && high <= 0xdbff) {
          char = (high << 16) | code
          position--
        }
      }
      if (seen === 0) {
        c0 = char
        start1 = start2 = position
        first2 = char
        units1 = units2 = 1
        // Breaks after the stride's last unit lie inside the run if the next stride continues it.
        breaks1 = pending1
        breaks2 = pending2
        pending1 = pending2 = 0
        seen = 1
        continue
      }
      if (seen === 1) {
        c1 = char
        alive2 = char !== c0 && isBmpLetter(c0) && isBmpLetter(char)
      }
      if (alive1) {
        if (char === c0) {
          start1 = position
          units1++
          breaks1 += pending1
          pending1 = 0
        } else alive1 = false
      }
      if (alive2) {
        if (char === ((seen & 1) === 1 ? c1 : c0)) {
          start2 = position
          first2 = char
          units2++
          breaks2 += pending2
          pending2 = 0
        } else alive2 = false
      }
      seen++
      if (!alive1 && !alive2) break
    }
    if (seen === 0) return undefined
    // A whole stride (white space aside) of the run continues the run from earlier strides; breaks
    // still pending lie between the two strides' units.
    if (alive1 && this.period === 1 && this.last === c0) return this.judge(to, breaks1 + pending1, units1)
    if (this.period === 2 && seen === 1 && this.last !== c0 && this.other === c0) {
      this.other = this.last
      this.last = c0
      return this.judge(to, breaks2 + pending2, units2)
    }
    // A pair continues in phase: the stride's earliest unit follows the unit that ended the last one.
    if (alive2 && this.period === 2 && first2 === this.other && ((c0 === this.last && c1 === this.other) || (c0 === this.other && c1 === this.last))) {
      this.last = c0
      this.other = c1
      return this.judge(to, breaks2 + pending2, units2)
    }
    // A run beginning in this stride (the longer of the two reaching its end).
    if (start2 < start1) {
      this.period = 2
      this.last = c0
      this.other = c1
      this.runStart = start2
      this.runBreaks = breaks2
      this.runUnits = units2
    } else {
      this.period = 1
      this.last = c0
      this.other = -1
      this.runStart = start1
      this.runBreaks = breaks1
      this.runUnits = units1
    }
    return undefined
  }

  private judge(to: number, breaks: number, units: number): RuleFinding | undefined {
    this.runBreaks += breaks
    this.runUnits += units
    // A grid: rows of several units each ("?\n\n?\n\n" is one mark per line, a loop's, not a board).
    // Two letters alternating are words ("no no no"), never a board's cells.
    const grid = this.period === 1 && this.thresholds.gridMinChars > 0 && this.runBreaks >= 2 && this.runUnits >= GRID_MIN_ROW_UNITS * this.runBreaks
    const minChars = grid ? this.thresholds.gridMinChars
      : this.period === 1 && isLongUnit(this.last) && !this.markAlonePerLine(to) ? this.thresholds.dividerMinChars : this.thresholds.minChars
    return runFinding(this.runStart, to, minChars)
  }

  /**
   * Whether each line of the run holds its mark alone, nothing else but line breaks (`\` then a line
   * break, `-` then a blank line), in reasoning or text, the mark no bracket: no divider is drawn so,
   * so it is a loop's run, cut at `minChars` (five ZeroEval answers of Gemma 2 wrote `\` a line up to
   * their length limit, cut 550 chars past the bound at the divider span). No real normal nor the npm
   * corpus holds such a run of 100 chars; a bracket a line is how code closes its nesting.
   */
  private markAlonePerLine(to: number): boolean {
    // The breaks after the last mark (at most two) are not counted yet.
    return !this.jsonText && !isBracket(this.last) && this.runBreaks >= this.runUnits - 1 && to - this.runStart <= this.runUnits + this.runBreaks + 2
  }
}
