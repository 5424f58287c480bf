// token period: a block of tokens repeated back to back modulo case and white space, counted as
// dsh-loop-guard counts it (every CJK character one token): "我再检查一下这个文件。" said `minRepeats`
// times in a row is a loop even when its spacing or capitalisation drifts and the cycle rule's exact
// period breaks. For each block length p up to `maxBlock` it keeps the run of tokens equal to the token
// p back; a run of p × (minRepeats − 1) means the block appeared minRepeats times.
// Deliberately let through: blocks of fewer than `minDistinct` distinct tokens, and of fewer than
// `WORDS_ALONE_BELOW` unless every token is a word (`wordsAlone`: "哈哈哈", "0 1 0 1" and table
// dividers are no loop, "to uncover to uncover" is); blocks repeated fewer times (a list of similar
// items); and until their data span, blocks that look like data (docs/detector.md#confidence).
// Earlier occurrences are found through a hash chain, so a token costs its few recent twins, not one
// comparison per block length.

import { ValueRow, dataSpanOf, valueRowKind, valueRowSpan, type DataSpans } from '../text/data-like.ts'
import type { RuleFinding } from '../finding.ts'
import type { Token, TokenReader } from '../text/tokenizer.ts'
import { typedTables } from '../text/typed-tables.ts'

/** `dataMinSpan` also applies to a block a third or more of whose tokens hold no letter. */
export interface TokenPeriodThresholds extends DataSpans {
  readonly minRepeats: number
  readonly maxBlock: number
  readonly minDistinct: number
}

const BUCKET_MASK = 1023

/**
 * A block of fewer distinct tokens than this repeats as a loop only when all of them are words: two
 * marks or values alternating are a grid, a divider or a bit pattern ("0 1 0 1", "| --- |", "❌ ✅"),
 * two words alternating are not. A longform-writing held-out sweep (69 models, 9,245 chapters) found a
 * Llama 4 Maverick chapter of 20 K chars of "to uncover to uncover" (now and then "to explore"), which
 * no rule cut: too few distinct tokens here, an exact period too short-lived for the cycle rule, and
 * no sentence for the unit rules.
 */
const WORDS_ALONE_BELOW = 3
/** A word: a token of two letters or more (a one-letter token is a grid's cell, "X O X O"). */
const MIN_WORD_LETTERS = 2

export class TokenPeriodRule implements TokenReader {
  private tokenCount = 0
  private readonly hashes: Int32Array
  /** Each recent token's start offset. */
  private readonly starts: Int32Array
  /** How many letters each recent token holds (0: a number, a pipe, a brace), capped at 255. */
  private readonly letters: Uint8Array
  /** Per block length: the span its data run must reach (`blockDataSpan`). */
  private readonly dataRunSpans: Int32Array
  /** Per block length: the start of the run already judged to be data (followed until its span), or -1. */
  private readonly dataRunStarts: Int32Array
  private readonly previousSameBucket: Int32Array
  private readonly lastInBucket: Int32Array
  private readonly mask: number
  /** runs[p]: how many tokens in a row equal the token p back. */
  private readonly runs: Int32Array
  private readonly runStarts: Int32Array
  /** matchedBy[p] = index + 1 when token `index` equals the token p back. */
  private readonly matchedBy: Int32Array
  /** The block lengths the previous token matched (their runs are the only non-zero ones) and this one. */
  private previousMatches: Int32Array
  private previousMatchCount = 0
  private matches: Int32Array
  private readonly shortestBlock: number

  /** `ring` holds the side's recent text (offset i at `i & ringMask`), read back to judge a block's text. */
  constructor(private readonly thresholds: TokenPeriodThresholds, private ring: Uint16Array, private ringMask: number) {
    let size = 2
    while (size < thresholds.maxBlock + 1) size *= 2
    ;[this.hashes, this.starts, this.previousSameBucket] = typedTables(Int32Array, 3, size)
    this.letters = new Uint8Array(size)
    this.mask = size - 1
    ;[this.dataRunStarts, this.dataRunSpans, this.runs, this.runStarts, this.matchedBy, this.previousMatches, this.matches] = typedTables(Int32Array, 7, thresholds.maxBlock + 1)
    this.dataRunStarts.fill(-1)
    this.lastInBucket = new Int32Array(BUCKET_MASK + 1).fill(-1)
    // A block of p tokens holds at most p distinct ones.
    this.shortestBlock = Math.max(1, thresholds.minDistinct)
  }

  /** Reads a larger ring from now on (the side's text so far at the same slots). */
  useRing(ring: Uint16Array): void {
    this.ring = ring
    this.ringMask = ring.length - 1
  }

  lineEnd(): undefined {
    return undefined
  }

  token(token: Token): RuleFinding | undefined {
    const { hashes, previousSameBucket, mask, runs, matchedBy, shortestBlock } = this
    const maxBlock = this.thresholds.maxBlock
    const { hash, end } = token
    const index = this.tokenCount++
    const bucket = (hash ^ (hash >>> 10)) & BUCKET_MASK
    const previous = this.lastInBucket[bucket]
    hashes[index & mask] = hash
    this.letters[index & mask] = Math.min(token.letters, 255)
    this.starts[index & mask] = token.start
    previousSameBucket[index & mask] = previous
    this.lastInBucket[bucket] = index
    const minRepeats = this.thresholds.minRepeats
    if (minRepeats === 0) return undefined
    const matches = this.matches
    let matchCount = 0
    for (let earlier = previous; earlier >= 0 && index - earlier <= maxBlock; earlier = previousSameBucket[earlier & mask]) {
      const block = index - earlier
      if (block < shortestBlock || hashes[earlier & mask] !== hash) continue
      matchedBy[block] = index + 1
      matches[matchCount++] = block
    }
    const previousMatches = this.previousMatches
    for (let m = 0; m < this.previousMatchCount; m++) {
      if (matchedBy[previousMatches[m]] !== index + 1) runs[previousMatches[m]] = 0
    }
    this.previousMatches = matches
    this.previousMatchCount = matchCount
    this.matches = previousMatches
    for (let m = matchCount - 1; m >= 0; m--) {
      const block = matches[m]
      if (++runs[block] === 1) this.runStarts[block] = token.start
      if (runs[block] < block * (minRepeats - 1)) continue
      const loopStart = this.runStarts[block]
      if (this.dataRunStarts[block] === loopStart) {
        if (end - loopStart >= this.dataRunSpans[block]) return { rule: 'token-period', loopStart, repeatedChars: end - loopStart, verifiedAt: end }
        continue
      }
      const distinct = this.distinctInBlock(index, block)
      if (distinct >= this.thresholds.minDistinct && (distinct >= WORDS_ALONE_BELOW || this.wordsAlone(index, block))) {
        const dataSpan = this.blockDataSpan(index, block, end)
        if (end - loopStart < dataSpan) {
          this.dataRunStarts[block] = loopStart
          this.dataRunSpans[block] = dataSpan
          continue
        }
        return { rule: 'token-period', loopStart, repeatedChars: end - loopStart, verifiedAt: end }
      }
      runs[block] = 0
    }
    return undefined
  }

  /** The span a repeated block must reach by what it holds (0: prose, cut now). */
  private blockDataSpan(index: number, block: number, end: number): number {
    let letterless = 0
    for (let i = 0; i < block; i++) if (this.letters[(index - i) & this.mask] === 0) letterless++
    // The block's text, read back from the side's ring with the char before it, judged as the cycle rule judges a period.
    const from = Math.max(0, this.starts[(index - block + 1) & this.mask] - 1)
    if (letterless * 3 >= block) {
      // Letterless tokens are values or marks: a record's braces and quoted numbers wait for the data span, values alone for theirs.
      const { writesData, dataMinSpan } = this.thresholds
      if (writesData || end - from > this.ringMask) return dataMinSpan
      const row = valueRowKind(this.ring, this.ringMask, from + 1, end)
      return valueRowSpan(this.thresholds, row === ValueRow.None ? ValueRow.Record : row, end - from - 1)
    }
    if (end - from > this.ringMask) return 0
    return dataSpanOf(this.thresholds, this.ring, this.ringMask, from + 1, end, 1)
  }

  /** Whether every token of the block ending at `index` is a word (`MIN_WORD_LETTERS` letters or more). */
  private wordsAlone(index: number, block: number): boolean {
    for (let i = 0; i < block; i++) if (this.letters[(index - i) & this.mask] < MIN_WORD_LETTERS) return false
    return true
  }

  private distinctInBlock(index: number, block: number): number {
    const distinct = new Set<number>()
    for (let i = 0; i < block; i++) distinct.add(this.hashes[(index - i) & this.mask])
    return distinct.size
  }
}
