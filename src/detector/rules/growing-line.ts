// growing line: a model writes a line, then the same line again with one more copy of a fragment, and
// again, and again (`setThresholdTimeBlock(0);`, `setThresholdTimeBlockTime(0);`, ...; `- 1000 (not
// divisible by 7)`, `- 10000 (...)`; an include path growing by `_iterator` a line). No two lines are the
// same and the text is not periodic, so cycle and token-period never see it; each line is one new token,
// so novelty sees new material. It runs until the output cap, each line longer than the last.
// This rule reads each line as it ends and asks whether it is one of the last few lines grown by one more
// copy of a fragment it already holds (an insertion that continues a periodic run), or one of them again.
// A stretch of such lines adds nothing but the growth: when a line in it has grown four times over and the
// stretch spans `minChars`, the rule trips.
// Deliberately let through: text with anything new between the grown lines (a step that lists its state
// as it grows, a move list that gains a move a step: a new line each time breaks the stretch), a line
// grown fewer than four times (a path broken down, a list of partitions that splits a block in two),
// fragments with no letter or digit (a triangle of stars, deeper indentation, `#` headings).
// Cost: at each line end, a length test against the last `RECENT_LINES` lines, and a compare of the
// ones whose length fits.

import { isWhitespace, isWordChar } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'
import type { LineReader } from '../text/tokenizer.ts'

export interface GrowingLineThresholds {
  /** Span (chars) of a stretch of grown and repeated lines that trips; 0: off. */
  readonly minChars: number
}

// A grown line is compared with the lines just before it: the field loops grow every line, or every third
// line with the same two lines between (a builder call and its description, WildBench, AlpacaEval).
const RECENT_LINES = 8
// A line grown this many times over is no breakdown of a path or a split of a block: the real normals'
// stretches of grown lines hold a line grown at most 3 times (a palindrome partition list, o3-mini) but
// for two: a list of moves re-listed each step (4-5 times, 249 chars) and a LaTeX table of contents
// deepening `\cftsubsub...secfont` (7 times, 431 chars: AlpacaEval, baize-v2-7b, itself degenerate).
const MIN_GROWTHS = 4
/** One more copy of a fragment: an insertion longer than this is new material. */
const MAX_INSERTION = 64
/** The fragment the insertion copies lies at most this far back in the line. */
const MAX_FRAGMENT = 64

export class GrowingLineRule implements LineReader {
  private lineStart = 0
  // The last RECENT_LINES lines that are not blank, in a ring: start, end, and how many times over each grew.
  private readonly starts = new Float64Array(RECENT_LINES)
  private readonly ends = new Float64Array(RECENT_LINES)
  private readonly growths = new Int32Array(RECENT_LINES)
  private count = 0
  /** Where the stretch of lines adding nothing new began (its first grown line); -1: none. */
  private stretchStart = -1
  /** Lines said again since the stretch's last grown line. */
  private sinceGrowth = 0

  constructor(private readonly thresholds: GrowingLineThresholds) {}

  /** The line [lineStart, position) ends at `position` (a line break), read from `ring` (offset i at `i & mask`). */
  lineEnd(ring: Uint16Array, mask: number, position: number): RuleFinding | undefined {
    const start = this.lineStart
    this.lineStart = position + 1
    const { minChars } = this.thresholds
    if (minChars === 0) return undefined
    let first = start
    while (first < position && isWhitespace(ring[first & mask])) first++
    if (first === position) return undefined
    // Lines the ring no longer holds are forgotten.
    const oldest = position - mask
    let growths = -1
    let repeated = false
    for (let back = 1; back <= this.count && back <= RECENT_LINES; back++) {
      const slot = (this.count - back) % RECENT_LINES
      const from = this.starts[slot]
      const to = this.ends[slot]
      if (from < oldest) break
      const length = to - from
      const extra = position - start - length
      if (extra === 0 && sameText(ring, mask, from, start, length)) {
        repeated = true
        growths = this.growths[slot]
        break
      }
      if (extra > 0 && extra <= MAX_INSERTION && this.growths[slot] + 1 > growths && grownFrom(ring, mask, from, to, start, position)) {
        growths = this.growths[slot] + 1
      }
    }
    const slot = this.count % RECENT_LINES
    this.starts[slot] = start
    this.ends[slot] = position
    this.growths[slot] = growths < 0 ? 0 : growths
    this.count++
    if (growths > 0 && !repeated) {
      if (this.stretchStart < 0) this.stretchStart = start
      this.sinceGrowth = 0
    } else if (!repeated || this.stretchStart < 0 || ++this.sinceGrowth > RECENT_LINES) {
      this.stretchStart = -1
      return undefined
    }
    const span = position + 1 - this.stretchStart
    if (growths < MIN_GROWTHS || span < minChars) return undefined
    return { rule: 'growing-line', loopStart: this.stretchStart, repeatedChars: span, verifiedAt: position + 1 }
  }
}

function sameText(ring: Uint16Array, mask: number, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (ring[(a + i) & mask] !== ring[(b + i) & mask]) return false
  return true
}

/**
 * Whether the line [start, end) is the line [from, to) with one insertion that continues a run the
 * line already holds: the inserted chars are those a fragment of at most MAX_FRAGMENT chars back, and
 * the fragment holds a letter or a digit.
 */
function grownFrom(ring: Uint16Array, mask: number, from: number, to: number, start: number, end: number): boolean {
  const length = to - from
  let prefix = 0
  while (prefix < length && ring[(from + prefix) & mask] === ring[(start + prefix) & mask]) prefix++
  let suffix = 0
  while (suffix < length - prefix && ring[(to - 1 - suffix) & mask] === ring[(end - 1 - suffix) & mask]) suffix++
  if (prefix + suffix !== length) return false
  const at = start + prefix
  const inserted = end - start - length
  for (let back = 1; back <= MAX_FRAGMENT && back <= prefix; back++) {
    let continues = true
    for (let i = 0; i < inserted && continues; i++) continues = ring[(at + i) & mask] === ring[(at + i - back) & mask]
    if (!continues) continue
    for (let i = at - back; i < at; i++) if (isWordChar(ring[i & mask])) return true
    return false
  }
  return false
}
