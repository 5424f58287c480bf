// growing line: a model writes a line, then the same line again with one more copy of a fragment, and
// again, and again (`setThresholdTimeBlock(0);`, `setThresholdTimeBlockTime(0);`, ...; `- 1000 (not
// divisible by 7)`, `- 10000 (...)`; an include path growing by `_iterator` a line). No two lines are the
// same and the text is not periodic, so cycle and token-period never see it; each line is one new token,
// so novelty sees new material. It runs until the output cap, each line longer than the last.
// This rule reads each line that ended in a stride (the tokenizer notes where) and asks whether it is
// one of the last few lines grown by one more copy of a fragment it already holds (an insertion that
// continues a periodic run), or one of them again.
// A stretch of such lines adds nothing but the growth: when a line in it has grown four times over and the
// stretch spans `minChars`, the rule trips.
// A list item's number opening a line is a counter, not content (text/list-number.ts): a numbered list of
// test calls each one copy longer than the last (`37.  print(substrcount("abab", "abab...ab"))`, two
// held-out CodeLlama 70B answers to their output cap) is compared without its numbers.
// Deliberately let through: text with anything new between the grown lines (a step that lists its state
// as it grows, a move list that gains a move a step: a new line each time breaks the stretch), a line
// grown fewer than four times (a path broken down, a list of partitions that splits a block in two),
// fragments with no letter or digit (a triangle of stars, deeper indentation, `#` headings).
// Cost: at each line end, a length test against the last `RECENT_LINES` lines, and a compare of the
// ones whose length, white space, first and last chars fit.

import { isWhitespace, isWordChar } from '../text/char-classes.ts'
import { listNumberEnd } from '../text/list-number.ts'
import type { RuleFinding } from '../finding.ts'

export interface GrowingLineThresholds {
  /** Span (chars) of a stretch of grown and repeated lines that trips; 0: off. */
  readonly minChars: number
}

// A grown line is compared with the lines just before it: the field loops grow every line, or every third
// line with the same two lines between (a builder call and its description, WildBench, AlpacaEval); three
// names growing in turn with their own lines between need more than 4 (a WildBench loop of C# `using`
// lines). Each line compared costs: 8 lines take the detector about 7 % longer on the npm corpus than
// the rule off, 4 about 5 %, 2 about 4 %.
const RECENT_LINES = 8
const RECENT_MASK = RECENT_LINES - 1
const RECENT_FIELDS = 4
// A line grown this many times over is no breakdown of a path or a split of a block: the real normals'
// stretches of grown lines hold a line grown at most 3 times (a palindrome partition list, o3-mini) but
// for two: a list of moves re-listed each step (4-5 times, 249 chars) and a LaTeX table of contents
// deepening `\cftsubsub...secfont` (7 times, 431 chars: AlpacaEval, baize-v2-7b, itself degenerate).
const MIN_GROWTHS = 4
/** One more copy of a fragment: an insertion longer than this is new material. */
const MAX_INSERTION = 64
/** The fragment the insertion copies lies at most this far back in the line. */
const MAX_FRAGMENT = 64
// A numbered list that gains an item a line is how a model shows a construction step by step, and it
// ends where the construction does: a Llama 4 Maverick answer (reasoning-gym, judged correct) lists its
// jug moves cumulatively, `12. ["fill B", "pour B->A", ...]`, 11 lines each one move longer, a stretch of
// about 1,000 chars over a plan that repeats every four moves. A stretch whose grown line is numbered
// waits for twice the span; the numbered loops go on to the output cap (CodeLlama's test calls growing
// by `ab`, Mistral Small's rewritten strings growing by `ab` or `bc` for 17-73 K chars).
const NUMBERED_SPAN_FACTOR = 2
/** Chars after its white space a line needs to start a stretch: the real loops' first grown lines hold 26 or more. */
const MIN_COMPARED_CHARS = 16

export class GrowingLineRule {
  private lineStart = 0
  // The last RECENT_LINES lines that are not blank, newest last, RECENT_FIELDS ints each: start (a list
  // item's number left out: its white space's length before what follows the number), end, the white
  // space that opens it, and how many times over it grew (a side stays far below 2^31 chars).
  private readonly recent = new Int32Array(RECENT_LINES * RECENT_FIELDS)
  private count = 0
  /** Where the stretch of lines adding nothing new began (its first grown line); -1: none. */
  private stretchStart = -1
  /** Lines said again since the stretch's last grown line. */
  private sinceGrowth = 0

  constructor(private readonly thresholds: GrowingLineThresholds) {}

  /** Reads the lines that end at the first `count` of `lineBreaks` (offsets of line breaks in `ring`, offset i at `i & mask`). */
  scan(ring: Uint16Array, mask: number, lineBreaks: Int32Array, count: number): RuleFinding | undefined {
    if (this.thresholds.minChars === 0) return undefined
    for (let i = 0; i < count; i++) {
      const finding = this.lineEnd(ring, mask, lineBreaks[i])
      if (finding) return finding
    }
    return undefined
  }

  /** The line [lineStart, position) ends at `position` (a line break). */
  private lineEnd(ring: Uint16Array, mask: number, position: number): RuleFinding | undefined {
    const start = this.lineStart
    this.lineStart = position + 1
    let first = start
    while (first < position && isWhitespace(ring[first & mask])) first++
    if (first === position) return undefined
    const indent = first - start
    // A list item's number is a counter: the line compared is what follows it and its white space.
    const numberEnd = listNumberEnd(ring, mask, first, position - 2)
    const numbered = numberEnd >= 0 && isWhitespace(ring[(numberEnd + 1) & mask])
    if (numbered) {
      first = numberEnd + 1
      while (first < position && isWhitespace(ring[first & mask])) first++
      if (first === position) return undefined
    }
    // Where the line is taken to start: its white space's length before what follows the number, so
    // the offsets below read a numbered line as they read one with no number.
    const body = first - indent
    const opening = ring[first & mask]
    const lineLength = position - body
    const recent = this.recent
    // Lines the ring no longer holds are forgotten. A line said again matters only inside a stretch, and
    // a line of a few chars (`}`, `);`) starts none: most lines of code are compared with nothing.
    const oldest = position - mask
    const inStretch = this.stretchStart >= 0
    const lines = inStretch || position - first >= MIN_COMPARED_CHARS ? Math.min(this.count, RECENT_LINES) : 0
    const minExtra = inStretch ? 0 : 1
    let growths = -1
    let repeated = false
    for (let back = 1; back <= lines; back++) {
      const base = ((this.count - back) & RECENT_MASK) * RECENT_FIELDS
      const from = recent[base]
      if (from < oldest) break
      const length = recent[base + 1] - from
      const extra = lineLength - length
      if (extra < minExtra || extra > MAX_INSERTION) continue
      // An insertion after the line's first char leaves its white space and that char as they were (an
      // insertion in the white space copies no letter or digit), and its last char unless it ends the
      // line: most lines of code and prose differ there.
      if (recent[base + 2] !== indent || ring[(from + indent) & mask] !== opening) continue
      const to = from + length
      const last = ring[(to - 1) & mask]
      if (last !== ring[(position - 1) & mask] && last !== ring[(body + length - 1) & mask]) continue
      if (extra === 0) {
        if (!sameText(ring, mask, from + indent + 1, first + 1, length - indent - 1)) continue
        repeated = true
        growths = recent[base + 3]
        break
      }
      if (recent[base + 3] + 1 > growths && grownFrom(ring, mask, from, to, body, position, indent + 1)) growths = recent[base + 3] + 1
    }
    const base = (this.count & RECENT_MASK) * RECENT_FIELDS
    recent[base] = body
    recent[base + 1] = position
    recent[base + 2] = indent
    recent[base + 3] = growths < 0 ? 0 : growths
    this.count++
    if (growths > 0 && !repeated) {
      if (!inStretch) this.stretchStart = start
      this.sinceGrowth = 0
    } else if (!repeated || !inStretch || ++this.sinceGrowth > RECENT_LINES) {
      this.stretchStart = -1
      return undefined
    }
    const span = position + 1 - this.stretchStart
    const minChars = numbered ? NUMBERED_SPAN_FACTOR * this.thresholds.minChars : this.thresholds.minChars
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
 * the fragment holds a letter or a digit. Their first `same` chars are known to be equal.
 */
function grownFrom(ring: Uint16Array, mask: number, from: number, to: number, start: number, end: number, same: number): boolean {
  const length = to - from
  let prefix = same
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
