// symbol run: one punctuation mark, symbol, emoji or one-letter token repeated without end, in any
// script ("。。。。", "!!!!", "! ! ! !", "😀😀😀", "a a a a", "好好好好"), with or without white space
// between. The cycle rule lets periods of one distinct char through (dividers, laughter), the
// token-period rule wants 3 distinct tokens, and identical-chunks sees such a run only when the
// provider happens to stream it in equal deltas; this rule reads the text itself, one stride at a
// time like the others, so the verdict and the cut are the same for any delta sizes.
// A run is the stretch from the first of a series of equal non-space characters (an astral character
// such as an emoji counts as one; variation selectors and joiners are transparent) to the latest, white
// space included; it trips once it spans `minChars`.
// Calibration (docs/detector.md#symbol-run): the longest run in the corpus is 175 chars (a block of
// `//` comment lines); the adversarial normal shapes hold a 1,200-char divider and 600 chars of
// laughter. Deliberately let through: every run shorter than `minChars` (dividers, rules, laughter,
// padding), and alternations ("0, 0, 0", "-=-=-"), which are two symbols, not one.
//
// Cost: each stride is read backwards only as far as the run reaching its end, a char or two in
// normal text; memory: two numbers.

import { isWhitespace } from './char-classes.ts'
import type { Finding } from './finding.ts'

const VARIATION_SELECTOR = 0xfe0f
const ZERO_WIDTH_JOINER = 0x200d
const BACKSLASH = 92
const LETTER_N = 110
const LETTER_R = 114
const LETTER_T = 116

export class SymbolRunRule {
  /** The symbol of the run reaching the end of the last stride (-1: none) and where the run began. */
  private symbol = -1
  private runStart = 0

  /** `jsonText`: the tool side, whose line breaks arrive JSON-escaped (`\n` counts as white space). */
  constructor(private readonly minChars: number, private readonly jsonText: boolean) {}

  /**
   * Reads the stride at offsets [from, to) of `ring` (offset i at `i & mask`) backwards from its end,
   * only as far as the run that reaches its end: a run long enough to trip covers whole strides, so
   * in normal text this reads a char or two per stride.
   */
  scan(ring: Uint16Array, mask: number, from: number, to: number): Finding | undefined {
    const minChars = this.minChars
    if (minChars === 0) return undefined
    let symbol = -1
    let start = to
    let broken = false
    for (let position = to - 1; position >= from; position--) {
      const code = ring[position & mask]
      if (isWhitespace(code) || code === VARIATION_SELECTOR || code === ZERO_WIDTH_JOINER) continue
      if (this.jsonText && code === BACKSLASH) continue
      // The char before `from` is still in the ring: an escape or a surrogate pair may straddle strides.
      if (this.jsonText && (code === LETTER_N || code === LETTER_R || code === LETTER_T) && position > 0 && ring[(position - 1) & mask] === BACKSLASH) {
        position--
        continue
      }
      // Half of an astral char at the stride's end: its other half comes with the next stride.
      if (code >= 0xd800 && code <= 0xdbff && position === to - 1) continue
      let char = code
      if (code >= 0xdc00 && code <= 0xdfff && position > 0) {
        const high = ring[(position - 1) & mask]
        if (high >= 0xd800 && high <= 0xdbff) {
          char = (high << 16) | code
          position--
        }
      }
      if (symbol === -1) symbol = char
      else if (char !== symbol) {
        broken = true
        break
      }
      start = position
    }
    if (symbol === -1) return undefined
    // The whole stride is the run (white space aside): it continues the run from earlier strides.
    const whole = !broken && this.symbol === symbol
    if (!whole) {
      this.symbol = symbol
      this.runStart = start
      return undefined
    }
    const span = to - this.runStart
    if (span < minChars) return undefined
    return { rule: 'symbol-run', loopStart: this.runStart, repeatedChars: span, verifiedAt: to }
  }
}
