// letter cycle: a model that breaks down mid-word writes sub-word fragments in one cycle
// ("izationalisinglymenteration" again and again), a letter changed or dropped here and there. Each
// edit breaks the cycle rule's exact period and the run is one token, so no other rule reads it. This
// rule reads runs of words of letters far longer than prose's, single spaces between them, and trips
// when the last `minSpan` chars of such a run repeat with one period up to a quarter of the span, each
// char matching the char a period back or one char either side of it (an edit shifts the rest of its
// copy by one) for `minShare` of the chars.
// Deliberately let through: prose (short words; Chinese prose puts a punctuation mark in every clause), a
// run in which one letter makes a quarter of the letters (padding, `AAAA` in a base64 blob, a move
// string), the tool side (files are written on purpose), and letters that look periodic by chance: a
// random string matches a period back, or one char either side, for about a fifth of its letters.
// Cost: at each stride's end, a walk back to the first short word (a few chars in prose); the periodic
// test runs at most once a stride, only inside such a run.

import { isCjk, isLetter } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'

export interface LetterCycleThresholds {
  /** Length (chars) of the near-periodic stretch that trips; 0: off. */
  readonly minSpan: number
  /** Share of the stretch's chars that must match a period back, give or take one char. */
  readonly minShare: number
}

const SPACE = 32
// Prose's words average five letters, identifiers and compound words rarely pass twelve; garbage runs
// a cycle of fragments together (a sub-word cycle of 24-28 letters in the field shapes), so a word of
// fewer letters ends the run this rule reads. Reading back from the stride's end, prose is left at its
// first short word.
const MIN_WORD_LETTERS = 12
// A CJK character is a syllable, a word of one or two: Chinese prose puts no space between its words
// and a punctuation mark every clause, so a run of CJK characters between single spaces is garbage's
// copies (12 characters in the field shapes, 11 when an edit drops one).
const MIN_CJK_WORD_CHARS = 6
// Garbage cycles fragments of words, whose commonest letter makes under a fifth of them; a stretch in
// which one letter makes a quarter is padding, a base64 blob's zero bytes (`AAAAEAAAAIAAAA`: 0.89 of its
// chars match a period back in the npm corpus) or a move string of four directions.
const MAX_TOP_LETTER_SHARE = 0.25

export class LetterCycleRule {
  constructor(private readonly thresholds: LetterCycleThresholds) {}

  /** Reads back from the end of a stride (side offset `to` in `ring`, offset i at `i & mask`) over the words of letters that reach it. */
  scan(ring: Uint16Array, mask: number, to: number): RuleFinding | undefined {
    const { minSpan } = this.thresholds
    if (minSpan === 0 || to < minSpan) return undefined
    const from = to - minSpan
    // The last word may still be growing: it is exempt from the length a word must have.
    let i = to - 1
    while (i >= from && isLetter(ring[i & mask])) i--
    while (i >= from) {
      if (ring[i & mask] !== SPACE) return undefined
      let letters = 0
      i--
      while (i >= from && isLetter(ring[i & mask])) {
        i--
        letters++
      }
      // A word cut by the window's start is exempt too.
      if (letters < (isCjk(ring[(i + 1) & mask]) ? MIN_CJK_WORD_CHARS : MIN_WORD_LETTERS) && i >= from) return undefined
    }
    return this.nearPeriodic(ring, mask, from, to)
  }

  /** Whether [from, to) of `ring` is words of garbage repeating with one period, edits allowed. */
  private nearPeriodic(ring: Uint16Array, mask: number, from: number, to: number): RuleFinding | undefined {
    const allowedMisses = Math.floor((to - from) * (1 - this.thresholds.minShare))
    const maxPeriod = (to - from) >> 2
    for (let period = 2; period <= maxPeriod; period++) {
      let misses = 0
      for (let i = from + period + 1; i < to && misses <= allowedMisses; i++) {
        const code = ring[i & mask]
        if (code !== ring[(i - period) & mask] && code !== ring[(i - period + 1) & mask] && code !== ring[(i - period - 1) & mask]) misses++
      }
      if (misses > allowedMisses) continue
      if (!lettersVaried(ring, mask, from, to)) return undefined
      return { rule: 'letter-cycle', loopStart: from, repeatedChars: to - from, verifiedAt: to }
    }
    return undefined
  }
}

/** Whether no letter makes more than `MAX_TOP_LETTER_SHARE` of the letters at [from, to) of `ring`. */
function lettersVaried(ring: Uint16Array, mask: number, from: number, to: number): boolean {
  const counts = new Map<number, number>()
  let letters = 0
  let top = 0
  for (let i = from; i < to; i++) {
    const code = ring[i & mask]
    if (code === SPACE) continue
    letters++
    const count = (counts.get(code) ?? 0) + 1
    counts.set(code, count)
    if (count > top) top = count
  }
  return top <= letters * MAX_TOP_LETTER_SHARE
}
