// cycle: the tail of a side is exactly periodic: a paragraph, a run of short sentences, a tag line or a
// JSON block with template tokens restated verbatim (loops reported from DSH sessions have periods of
// 89–409 chars in reasoning, 172 in visible text). It trips when the tail repeats with a period
// d ≤ `maxPeriod` over max(`minSpan`, `minPeriods` × d) chars.
// A list item's number is a counter, not content: a step list going round the same states while its
// numbers climb (`269. Fill 6L jug: (6, 6)` ... `273. Fill 6L jug: (6, 6)`) repeats as verbatim as any
// loop, so the digits of a number opening a line (`12.`, `12)`) match any digits of the same length.
// Deliberately let through: a block repeated twice (2.5 periods are required); and, until their data
// span, dividers and padding (a period with fewer than two distinct letters or digits) and what a model
// writes on purpose (data-like.ts `dataSpanOf`, docs/detector.md#confidence).
// Cost: each char joins a hash chain of earlier positions whose 8-gram shares its bucket (as in LZ77); a
// check, at each multiple of `cycleCheckStride` (fixed offsets, so the verdict does not depend on the
// deltas), walks those positions nearest first and verifies each candidate period, and walks nothing
// when a recent 8-gram has no twin in reach (`hasFreshGram`), as at almost every check of normal text.
// Positions are int32 (a fifth faster than doubles here); 2^31 chars is far above any output cap.

import { endsWhiteEscape, isDigit, isWhitespace, isWordChar } from '../text/char-classes.ts'
import { dataSpanOf, opensLikeData, opensTag, type DataSpans } from '../text/data-like.ts'
import { listNumberEnd, MAX_LIST_NUMBER_DIGITS } from '../text/list-number.ts'
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
const NOT_DIVIDER = 0
/** A period of marks alone with no line break: a rule drawn across one line. */
const LINE_DIVIDER = 1
/** Another period with fewer than two distinct letters or digits: zero rows, blank lines, a board of one mark. */
const DIVIDER = 2
const DIGIT_ZERO = 48
// How far back the start of the line a repetition begins in is looked for (a table row's head).
const LINE_HEAD_CHARS = 256
/** What a digit opening a line is hashed as, so that a list item's number does not break its 8-grams. */
const COUNTER_CODE = 35
const GRAM_BITS = (1 << GRAM) - 1
/** The deepest indentation before a list number that counts as a counter. */
const COUNTER_MAX_INDENT = 16

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
  /** Span of a period with fewer than two distinct letters or digits (a divider, zero rows); 0: never cut. */
  readonly dividerMinSpan: number
  /** Span of a period of marks alone in one line (`|---`, `-=`), as symbol-run waits for a divider of one mark; 0: never cut. */
  readonly lineDividerMinSpan: number
}

export class CycleRule {
  /**
   * Per position (at its ring slot): how far back the previous position of its 8-gram's bucket is, or
   * `NO_TWIN`. 16 bits suffice as no period exceeds 8,192 chars (the schema's cap), and halve the
   * index's size and writes against int32 positions.
   */
  private distanceBack: Uint16Array
  /** Per bucket: its latest position, `NO_POSITION` until it has one. */
  private readonly bucketHeads: Int32Array
  private mask: number
  private rollingHash = 0
  /** Bit k: the char k places before the newest was hashed as `COUNTER_CODE` (the last `GRAM` chars). */
  private counterBits = 0
  // A verified period that looks like data, followed until it spans `dataSpan` or breaks.
  private dataPeriod = 0
  private dataSpan = 0
  private dataStart = 0
  private dataCheckedTo = 0
  /** Whether the period being verified matched a list number against a different one. */
  private matchedCounters = false
  private checks = 0
  private readonly shortMaxPeriod: number
  /** A lower bound of the chars any verified period matches (its span less one period). */
  private readonly minRequired: number

  /** `ring` holds the side's recent characters (offset i at `i & mask`); see `CycleRule.ringSize`. */
  constructor(private readonly thresholds: CycleThresholds, private ring: Uint16Array) {
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

  /**
   * Reads a larger ring from now on: the side's text so far sits in it at the same slots (every offset
   * is below both sizes), and the index is carried over slot for slot.
   */
  useRing(ring: Uint16Array): void {
    const distanceBack = new Uint16Array(ring.length)
    distanceBack.set(this.distanceBack)
    this.distanceBack = distanceBack
    this.ring = ring
    this.mask = ring.length - 1
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

  /** Writes `text[from, to)` into the ring at side offsets from `position` on, indexing each char in the same pass. */
  write(text: string, from: number, to: number, position: number): void {
    const { ring, distanceBack, bucketHeads, mask } = this
    let hash = this.rollingHash
    let counterBits = this.counterBits
    for (let i = from; i < to; i++, position++) {
      const code = text.charCodeAt(i)
      ring[position & mask] = code
      const outgoing = position >= GRAM ? ring[(position - GRAM) & mask] : 0
      // A digit opening a line is hashed as one mark; only digits, and the 8 chars after such a one, are looked at.
      if (counterBits === 0 && (code - 48) >>> 0 >= 10) hash = (Math.imul(hash, BASE) + code - Math.imul(outgoing, BASE_TO_GRAM)) | 0
      else {
        const previousCounts = (counterBits & 1) !== 0
        const leaving = (counterBits & (1 << (GRAM - 1))) !== 0 ? COUNTER_CODE : outgoing
        counterBits = (counterBits << 1) & GRAM_BITS
        if (isDigit(code) && (position > 0 && isDigit(ring[(position - 1) & mask]) ? previousCounts : this.lineNumberStart(position) >= 0)) counterBits |= 1
        hash = (Math.imul(hash, BASE) + ((counterBits & 1) !== 0 ? COUNTER_CODE : code) - Math.imul(leaving, BASE_TO_GRAM)) | 0
      }
      if (position < GRAM - 1) continue
      const bucket = (hash ^ (hash >>> 15)) & TABLE_MASK
      const distance = position - bucketHeads[bucket]
      distanceBack[position & mask] = distance < NO_TWIN ? distance : NO_TWIN
      bucketHeads[bucket] = position
    }
    this.rollingHash = hash
    this.counterBits = counterBits
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
      // The far end and the middle first: a bucket collision or a chance 8-gram match (indentation, a
      // keyword) fails there at once.
      const far = last - required + 1
      const middle = last - (required >> 1)
      this.matchedCounters = false
      if (!this.repeats(far, period, last) || !this.repeats(middle, period, last)) continue
      let matched = 0
      while (matched < required && this.repeats(last - matched, period, last)) matched++
      if (matched < required) continue
      // Trace the repetition back to its start (bounded by the ring).
      const oldest = Math.max(period, length - this.mask - 1 + period)
      while (last - matched >= oldest && this.repeats(last - matched, period, last)) matched++
      // A divider, a row of zeros or a blank line is written long on purpose: it waits for its own span.
      const divider = this.dividerKind(last, period)
      const dividerSpan = divider === LINE_DIVIDER ? this.thresholds.lineDividerMinSpan : this.thresholds.dividerMinSpan
      if (divider !== NOT_DIVIDER && dividerSpan === 0) return undefined
      let dataSpan = divider !== NOT_DIVIDER ? dividerSpan
        : dataSpanOf(this.thresholds, ring, mask, length - period, length, 0, () => this.lineOpensLikeData(length - matched, length))
      // A repetition that holds only with list numbers masked is counted in copies, as code is: a list
      // going round its items ends at the count it was asked for, a step loop goes on (`codeMinPeriods`).
      if (this.matchedCounters) dataSpan = Math.max(dataSpan, Math.ceil((this.thresholds.codeMinPeriods - 1) * period))
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
   * Whether the char at `position` repeats the one `period` before it (`last`: the newest char): the same
   * char, or digits at the same place in list numbers of the same length.
   */
  private repeats(position: number, period: number, last: number): boolean {
    return this.ring[position & this.mask] === this.ring[(position - period) & this.mask] || this.countersMatch(position, period, last)
  }

  /**
   * Whether the chars at `position` and `period` before it, not the same, are digits at the same place
   * in list numbers of the same length (`last`: the newest char).
   */
  private countersMatch(position: number, period: number, last: number): boolean {
    if (!isDigit(this.ring[position & this.mask]) || !isDigit(this.ring[(position - period) & this.mask])) return false
    const place = this.counterDigitPlace(position, last)
    if (place < 0 || place !== this.counterDigitPlace(position - period, last)) return false
    this.matchedCounters = true
    return true
  }

  /**
   * Where the digit at `position` sits in a list item's number (`12.` or `12)` opening a line after
   * white space): digits before it and after it, as one number, or -1 if it is no such digit.
   */
  private counterDigitPlace(position: number, last: number): number {
    const { ring, mask } = this
    if (!isDigit(ring[position & mask])) return -1
    const start = this.lineNumberStart(position)
    if (start < 0) return -1
    const end = listNumberEnd(ring, mask, start, last)
    if (end < 0) return -1
    return (position - start) * (MAX_LIST_NUMBER_DIGITS + 1) + (end - start)
  }

  /**
   * Where the digits before `position` (at most `MAX_LIST_NUMBER_DIGITS`) start, when only spaces and tabs
   * stand between them and the line's start; -1 otherwise.
   */
  private lineNumberStart(position: number): number {
    const { ring, mask } = this
    let start = position
    while (start > 0 && position - start < MAX_LIST_NUMBER_DIGITS && isDigit(ring[(start - 1) & mask])) start--
    let head = start
    while (head > 0 && start - head < COUNTER_MAX_INDENT) {
      const code = ring[(head - 1) & mask]
      if (code === 10 || code === 13) return start
      if (code !== 32 && code !== 9) return -1
      head--
    }
    return head === 0 ? start : -1
  }

  /**
   * Whether an 8-gram ending in the last `minRequired` chars has no same-bucket position within
   * `maxPeriod` before it: inside a stretch of period d every 8-gram recurs d chars earlier, so such a
   * fresh gram rules out every period and spares the walk (random reads, the rule's main cost).
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
    const { dataPeriod } = this
    for (let i = this.dataCheckedTo; i < length; i++) {
      if (!this.repeats(i, dataPeriod, length - 1)) {
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
   * Whether the line the repetition starts in opens like data (a symbol after any indentation): a period
   * with no line break in it (a C table's `CLASS_OTHER, ` after the row's `/* 0x20 *\/`) shows what it
   * is only by its line.
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

  /**
   * Whether the period holds fewer than two distinct letters or digits: marks alone in one line (a rule
   * of `|---` or `-=`), or a divider of another kind (zero rows, blank lines, one letter between spaces).
   * A tag is markup, never a divider, whatever its letters: `</s>` (the end-of-sequence token of
   * Llama and Mistral models) said again 270 times by a real Mistral-Nemo answer (ZeroEval's GSM8K
   * outputs) waited for the divider span.
   */
  private dividerKind(last: number, period: number): number {
    let first = -1
    let lineBreak = false
    let mark = false
    let whiteEscape = false
    for (let i = 0; i < period; i++) {
      const code = this.ring[(last - i) & this.mask]
      // The period repeats back to back: the char after its last is its first.
      if (code === 60 && opensTag(this.ring[(i === 0 ? last - period + 1 : last - i + 1) & this.mask])) return NOT_DIVIDER
      if (code === 10 || code === 13) lineBreak = true
      if (!isWordChar(code)) {
        if (!isWhitespace(code)) mark = true
        continue
      }
      // A list number is a counter only where the repetition needed it to be one (its numbers climb):
      // `43.` said again verbatim is content, as any other digits are.
      if (this.matchedCounters && this.counterDigitPlace(last - i, last) >= 0) continue
      // `\n`, `\t`, `\r` written out are white space, as symbol-run reads them (the char before the
      // period's first is its last: the repetition spans 2.5 periods at least).
      if (endsWhiteEscape(this.ring, this.mask, last - i)) whiteEscape = true
      if (first === -1) first = code
      else if (code !== first) return NOT_DIVIDER
    }
    // One value said again among marks (`, 5, 5`, `'o', 'o'`) is a list or a string written on
    // and on, not padding: it waited for the divider span past the end of 20 real loops (ZeroEval,
    // reasoning-gym), and no real normal or npm document repeats one so past the cycle span. Zeros are
    // padding (a zero-filled array, a board of `0`), a letter with no mark is a row of a board.
    if (first !== -1 && first !== DIGIT_ZERO && mark && !whiteEscape) return NOT_DIVIDER
    return first === -1 && !lineBreak ? LINE_DIVIDER : DIVIDER
  }
}
