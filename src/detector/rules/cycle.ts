// cycle: the tail of a side is exactly periodic. Catches a model restating the same paragraph, the same
// run of short sentences, a tag line, a JSON block with template tokens verbatim (loops reported from
// DSH sessions had periods of 89–409 chars in reasoning and 172 in visible text). It trips when the
// tail, read at a check point, repeats with some period d ≤ `maxPeriod` over at least max(`minSpan`,
// `cycleMinPeriods` × d) characters.
// Deliberately let through: a block repeated exactly twice (2.5 periods are required), and dividers,
// laughter and padding ("=====", "|---|---|", "哈哈哈", "0000"): a period holding fewer than two
// distinct letters or digits is not a loop of words. What a model writes on purpose waits longer,
// decided by side and by what repeats (data-like.ts, docs/detector.md#confidence): in reasoning and
// text, rows of values or one table row repeated until `dataMinSpan`, code or structured data until
// `codeMinSpan`; in tool arguments anything that looks like data or code, or repeats on a line opening
// like data (a C table's row `/* 0x20 */ CLASS_OTHER, ` × 32), until `toolDataMinSpan`. A correct answer
// may hold many identical rows; a loop keeps going.
//
// Cost: every character updates a rolling hash of the last 8 chars and a hash chain of earlier
// positions whose 8-gram falls in the same bucket (as LZ77 does); a check, run when the side's length
// reaches a multiple of `cycleCheckStride`, walks only those earlier positions, nearest first, and
// verifies each candidate period (two probes, then backwards until the first mismatch); it walks
// nothing when one of the last 8-grams it would have to match has no earlier twin in reach, which in
// normal text is almost every check (`hasFreshGram`). Memory is one ring of recent characters sized
// from the settings, independent of the stream's length. Positions are kept as int32 (a fifth faster
// than doubles here): 2^31 chars on one side of one call, thousands of times any model's output cap. Because checks sit at fixed offsets of the
// side's text, the verdict does not depend on how the text was split into deltas.

import { isWhitespace, isWordChar } from '../text/char-classes.ts'
import { dataSpanOf, opensLikeData, type DataSpans } from '../text/data-like.ts'
import type { RuleFinding } from '../finding.ts'

const GRAM = 8
const BASE = 0x9e3779b1 | 0
const TABLE_BITS = 12
const TABLE_MASK = (1 << TABLE_BITS) - 1
/** `distanceBack` when the bucket has no earlier position within 16 bits. */
const NO_TWIN = 0xffff
/** An empty bucket's head: far enough back that the distance to it is always `NO_TWIN`. */
const NO_POSITION = -(NO_TWIN + 1)
/** The longest period looked for at every check (reported loops: 89–409 chars); longer ones every fourth. */
export const LONG_PERIOD = 1024
// How far back the start of the line a repetition begins in is looked for (a table row's head).
const LINE_HEAD_CHARS = 256

function power(base: number, exponent: number): number {
  let result = 1
  for (let i = 0; i < exponent; i++) result = Math.imul(result, base)
  return result
}
const BASE_TO_GRAM = power(BASE, GRAM)

export interface CycleThresholds extends DataSpans {
  readonly maxPeriod: number
  readonly minSpan: number
  readonly minPeriods: number
}

export class CycleRule {
  /**
   * Per position (at its ring slot): how far back the latest earlier position of its 8-gram's bucket
   * is, `NO_TWIN` when none is within 65,534 chars. A distance and not the position, as 16 bits: every
   * period looked for is at most 8,192 chars (the schema's cap), so a longer distance ends the walk as
   * no twin does, and the index is half the size and half the writes per char of int32 positions.
   */
  private readonly distanceBack: Uint16Array
  /** Per bucket: its latest position, `NO_POSITION` until it has one. */
  private readonly bucketHeads: Int32Array
  private readonly mask: number
  private rollingHash = 0
  // A verified period that looks like data, followed until it spans `dataSpan` or breaks.
  private dataPeriod = 0
  private dataSpan = 0
  private dataStart = 0
  private dataCheckedTo = 0
  private checks = 0
  private readonly shortMaxPeriod: number
  /** A lower bound of the chars any verified period matches (its span less one period). */
  private readonly minRequired: number

  /** `ring` holds the side's recent characters (offset i at `i & mask`); see `CycleRule.ringSize`. */
  constructor(private readonly thresholds: CycleThresholds, private readonly ring: Uint16Array) {
    const size = ring.length
    this.distanceBack = new Uint16Array(size)
    this.bucketHeads = new Int32Array(1 << TABLE_BITS).fill(NO_POSITION)
    this.mask = size - 1
    const { minSpan, minPeriods, maxPeriod } = thresholds
    this.shortMaxPeriod = Math.min(maxPeriod, LONG_PERIOD)
    // required(d) = max(minSpan, ⌈minPeriods·d⌉) − d ≥ max(minSpan − d, (minPeriods − 1)·d), least
    // where the two meet; and ≥ minSpan − maxPeriod, as d ≤ maxPeriod.
    this.minRequired = Math.max(Math.floor((minSpan * (minPeriods - 1)) / minPeriods), minSpan - maxPeriod)
  }

  /** The ring size (a power of two) the rule needs: twice its longest verified span, so the start of a loop can be traced back past it. */
  static ringSize(thresholds: CycleThresholds): number {
    const longestNeed = Math.max(thresholds.minSpan, Math.ceil(thresholds.minPeriods * thresholds.maxPeriod))
    let size = 1024
    while (size < 2 * longestNeed + 2) size *= 2
    return size
  }

  private need(period: number): number {
    return Math.max(this.thresholds.minSpan, Math.ceil(this.thresholds.minPeriods * period))
  }

  /**
   * Writes `text[from, to)` into the ring at side offsets from `position` on, indexing each char as it
   * goes: each position joins its 8-gram's bucket chain. One pass per char: the copy and the index
   * share the char read from the delta.
   */
  write(text: string, from: number, to: number, position: number): void {
    const { ring, distanceBack, bucketHeads, mask } = this
    let hash = this.rollingHash
    for (let i = from; i < to; i++, position++) {
      const code = text.charCodeAt(i)
      ring[position & mask] = code
      const outgoing = position >= GRAM ? ring[(position - GRAM) & mask] : 0
      hash = (Math.imul(hash, BASE) + code - Math.imul(outgoing, BASE_TO_GRAM)) | 0
      if (position < GRAM - 1) continue
      const bucket = (hash ^ (hash >>> 15)) & TABLE_MASK
      const distance = position - bucketHeads[bucket]
      distanceBack[position & mask] = distance < NO_TWIN ? distance : NO_TWIN
      bucketHeads[bucket] = position
    }
    this.rollingHash = hash
  }

  /** Checks the text up to `length` (the side's length after the last `add`). */
  check(length: number): RuleFinding | undefined {
    const { minSpan } = this.thresholds
    if (this.thresholds.maxPeriod === 0 || length < minSpan) return undefined
    // Periods above `LONG_PERIOD` are looked for at every fourth check only: the walk back through
    // 8 K chars of candidates is most of a check's cost, and a long period's verdict, 2.5 periods in,
    // loses at most three strides.
    const maxPeriod = (this.checks++ & 3) === 0 ? this.thresholds.maxPeriod : this.shortMaxPeriod
    const ring = this.ring
    const mask = this.mask
    if (this.dataPeriod > 0) {
      const found = this.followData(length)
      if (found || this.dataPeriod > 0) return found
    }
    const last = length - 1
    if (this.hasFreshGram(last, maxPeriod)) return undefined
    // A run of one repeated character ("=====", spaces, "哈哈哈"): every period shorter than the run
    // matches inside it and fails at its edge, so those candidates are skipped unverified; a run long
    // enough to verify is a divider, not a loop.
    const lastCode = ring[last & mask]
    let run = 1
    const runLimit = Math.min(length, this.need(1))
    while (run < runLimit && ring[(last - run) & mask] === lastCode) run++
    if (run >= this.need(1)) return undefined
    const distanceBack = this.distanceBack
    for (let period = distanceBack[last & mask]; period <= maxPeriod; period += distanceBack[(last - period) & mask]) {
      if (period < run) continue
      const need = this.need(period)
      if (need > length) continue
      const required = need - period
      // Probe the far end and the middle first: a bucket collision, or a chance 8-gram match
      // (indentation, a common keyword), fails there at once instead of after walking back through
      // the stretch the two share.
      const far = last - required + 1
      const middle = last - (required >> 1)
      if (ring[far & mask] !== ring[(far - period) & mask] || ring[middle & mask] !== ring[(middle - period) & mask]) continue
      let matched = 0
      while (matched < required && ring[(last - matched) & mask] === ring[(last - matched - period) & mask]) matched++
      if (matched < required) continue
      if (this.isDivider(last, period)) return undefined
      // Trace the repetition back to its start (bounded by the ring).
      const oldest = Math.max(period, length - this.mask - 1 + period)
      while (last - matched >= oldest && ring[(last - matched) & mask] === ring[(last - matched - period) & mask]) matched++
      const dataSpan = dataSpanOf(this.thresholds, ring, mask, length - period, length, 0, () => this.lineOpensLikeData(length - matched, length))
      if (dataSpan > matched) {
        this.dataPeriod = period
        this.dataSpan = dataSpan
        this.dataStart = length - matched
        this.dataCheckedTo = length
        return undefined
      }
      return { rule: 'cycle', loopStart: length - matched, repeatedChars: matched, verifiedAt: length }
    }
    return undefined
  }

  /**
   * Whether an 8-gram ending in the last `minRequired` chars has no same-bucket position within
   * `maxPeriod` before it. Inside a stretch that repeats with period d, every 8-gram also occurs d chars
   * earlier, so such a fresh gram rules out every period the check could verify, and the walk back
   * through the candidates (random reads, the cycle rule's main cost inside the agent loop) is skipped.
   * In normal text a fresh gram is almost always among the last few positions, read in order.
   */
  private hasFreshGram(last: number, maxPeriod: number): boolean {
    const { distanceBack, mask } = this
    for (let position = last; position >= last - this.minRequired + GRAM; position--) {
      if (distanceBack[position & mask] > maxPeriod) return true
    }
    return false
  }

  /** Extends the data-like period over the chars since the last check; trips once it spans `dataSpan`. */
  private followData(length: number): RuleFinding | undefined {
    const { ring, mask, dataPeriod } = this
    for (let i = this.dataCheckedTo; i < length; i++) {
      if (ring[i & mask] !== ring[(i - dataPeriod) & mask]) {
        this.dataPeriod = 0
        return undefined
      }
    }
    this.dataCheckedTo = length
    const span = length - this.dataStart
    if (span < this.dataSpan) return undefined
    return { rule: 'cycle', loopStart: this.dataStart, repeatedChars: span, verifiedAt: length }
  }

  /**
   * Whether the line the repetition starts in opens like data (a symbol after any indentation, before
   * the repetition): a period with no line break in it ("CLASS_OTHER, " 32 times after a row's
   * `/* 0x20 *\/`) shows what it is only by the line it sits on. Reads back at most LINE_HEAD_CHARS
   * chars, within the ring.
   */
  private lineOpensLikeData(start: number, length: number): boolean {
    const { ring, mask } = this
    const oldest = Math.max(0, length - mask - 1, start - LINE_HEAD_CHARS)
    let lineStart = start
    while (lineStart > oldest) {
      const code = ring[(lineStart - 1) & mask]
      // In tool arguments a line break arrives JSON-escaped, as the two chars \n.
      if (code === 10 || code === 13 || (code === 110 && lineStart - 2 >= oldest && ring[(lineStart - 2) & mask] === 92)) break
      lineStart--
    }
    if (lineStart === oldest && lineStart > 0) return false
    // The line's head before the repetition, indentation skipped: a prose loop begins at a line's
    // start or after words, an indented bullet ("  - ") opens prose.
    for (let i = lineStart; i < start; i++) {
      const code = ring[i & mask]
      if (!isWhitespace(code)) return opensLikeData(code)
    }
    return false
  }

  private isDivider(last: number, period: number): boolean {
    let first = -1
    for (let i = 0; i < period; i++) {
      const code = this.ring[(last - i) & this.mask]
      if (!isWordChar(code)) continue
      if (first === -1) first = code
      else if (code !== first) return false
    }
    return true
  }
}
