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
// Cost: one comparison per char; memory: a few numbers.

import { isWhitespace } from './char-classes.ts'
import type { Finding } from './finding.ts'
import type { JsonUnescaper } from './json-unescape.ts'

const VARIATION_SELECTOR = 0xfe0f
const ZERO_WIDTH_JOINER = 0x200d

export class SymbolRunRule {
  private symbol = -1
  private runStart = 0
  private highSurrogate = 0
  private highSurrogateAt = 0

  /** `unescaper` is given on the tool side, whose text is JSON (its escaped line breaks are white space). */
  constructor(private readonly minChars: number, private readonly unescaper?: JsonUnescaper) {}

  /** Reads the characters at offsets [from, to) from `ring` (offset i at `i & mask`). */
  scan(ring: Uint16Array, mask: number, from: number, to: number): Finding | undefined {
    const minChars = this.minChars
    if (minChars === 0) return undefined
    const unescaper = this.unescaper
    for (let position = from; position < to; position++) {
      let code = ring[position & mask]
      if (unescaper !== undefined && (code = unescaper.next(code)) < 0) continue
      if (isWhitespace(code) || code === VARIATION_SELECTOR || code === ZERO_WIDTH_JOINER) continue
      let at = position
      if (code >= 0xd800 && code <= 0xdbff) {
        this.highSurrogate = code
        this.highSurrogateAt = position
        continue
      }
      if (code >= 0xdc00 && code <= 0xdfff && this.highSurrogateAt === position - 1) {
        code = (this.highSurrogate << 16) | code
        at = position - 1
      }
      if (code !== this.symbol) {
        this.symbol = code
        this.runStart = at
        continue
      }
      const span = position + 1 - this.runStart
      if (span >= minChars) return { rule: 'symbol-run', loopStart: this.runStart, repeatedChars: span, verifiedAt: position + 1 }
    }
    return undefined
  }
}
