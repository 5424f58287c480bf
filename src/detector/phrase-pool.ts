// phrase pool: a small vocabulary of short units reshuffled without any period. The seed's shape is
// "Go. / OK. / Writing. / Let me write." for 330,188 chars of reasoning (26 phrases, 5,569 sightings),
// and the same in visible text (44,387 chars), sometimes on one line with no newline at all. Units
// are lines, and sentences inside a line (ended by . ! ? before white space, or by 。！？), so a pool
// written on one long line is seen too. A unit is normalised (trimmed, white space collapsed, ASCII
// lower-cased) and counts only if it has at least 2 chars and a letter or digit: "}" and "|---|" are
// syntax, not phrases. The rule keeps a recent window of units: at least `windowChars` normalised
// chars and at least `windowUnits` units (reasoning and text), whichever reaches further back, so a
// pool of long sentences is seen enough times in it (a window of 1,024 chars held only ~20 sightings
// of 52-char sentences: a 5-sentence pool stayed at concentration 3.9 for 7,000 chars). Memory is
// bounded by max(windowChars, windowUnits) units. Each time a unit already in the window ends, the
// ratios are measured over every stretch from a unit of the window to now that spans at least
// `windowChars` (the length the thresholds were calibrated on) or starts at the window's oldest unit,
// so a pool of long units is judged from where it began, not diluted by the productive text before
// it, and the rule trips when all three hold on one stretch:
//   repeated mass  Σ (sightings − 1) × length  ≥ minRepeatedChars   (enough text is repetition)
//   coverage       repeated mass / stretch     ≥ poolMinCoverage    (most of the stretch is repetition)
//   concentration  sightings / distinct units  ≥ poolMinConcentration
// Concentration is what lets a code block quoted twice (before/after: every line seen ~2 times)
// through, while a pool sees each phrase 7–23 times (seed measurements). It also sets the latency: a
// pool of K distinct units of L chars needs 4K sightings (with the default 4), and 0.7 of a stretch
// of at least 1,024 chars must be repetition (717 chars), so it trips about
// (L + 1) × max(4K, K + ⌈717 / L⌉) chars after it began, plus a unit or two and the stride: under
// 1,100 chars while that product stays small (short units, or a vocabulary K × L under ~300 chars),
// and 4 × K × (L + 1) beyond, because before that its units have not been seen more often than a
// block quoted three times. A pool whose 4K sightings fit neither in `windowUnits` units nor in
// `windowChars` chars (more than 8 distinct units longer than 1,024 / 4K chars with the defaults) is
// beyond this rule: a larger floor trips on overload lists in real headers (settings.ts).
// `loopStart` is the first unit of the longest passing stretch that is sighted again. That is where the
// pool began: a pool's ratios grow as it goes on, so the stretch from its first unit passes as soon as
// any does, and it is still in the window then (the window holds the 4K sightings it needs). The
// earliest offset the rule can vouch for is the window's oldest unit; a looser lead-in (a wider
// vocabulary narrowing to a pool) is not vouched for: `loopStart` is then where the ratios begin to hold.
//
// Units are read as runs of tokens (tokenizer.ts) and kept as a hash of their tokens plus their
// length, so a long line costs O(1) per char and nothing is kept beyond the window's units. The
// walk over the stretches stops where no longer one can reach the coverage (repeated mass / coverage
// chars), so it costs only when the window is mostly repetition, and at most the window. The verdict
// is taken when a unit ends, at a fixed offset of the text, so it does not depend on delta boundaries.

import { FNV_OFFSET, FNV_PRIME } from './char-classes.ts'
import type { Finding } from './finding.ts'
import type { Token, TokenReader } from './tokenizer.ts'

export interface PoolThresholds {
  readonly minRepeatedChars: number
  readonly windowChars: number
  readonly windowUnits: number
  readonly minCoverage: number
  readonly minConcentration: number
}

const SPACE = 32
const NONE = -1

/**
 * A unit's key in the window: its token hash mixed with its length, kept to 31 bits so V8 stores it as a
 * small integer (a double key costs a heap number per lookup: 4 % of the detector's instructions). Two
 * distinct units share a key with odds 2^-31 per pair, about one pair in 4,000 full windows; a shared key
 * only adds one unit's length to the repeated mass, far below what the thresholds need.
 */
function unitKey(hash: number, length: number): number {
  return Math.imul(hash ^ length, FNV_PRIME) >>> 1
}

export class PhrasePoolRule implements TokenReader {
  // The unit being read.
  private hash = FNV_OFFSET
  private length = 0
  private hasWordChar = false
  private start = 0
  // The window: parallel arrays from `head` on, oldest first; entry i is unit number `base + i`.
  private keys: number[] = []
  private lengths: number[] = []
  private starts: number[] = []
  private counted: boolean[] = []
  /** The unit number of the next sighting of the same unit in the window, or NONE. */
  private nextSighting: number[] = []
  private base = 0
  private head = 0
  private windowLength = 0
  /** The unit number of each counted unit's latest sighting in the window. */
  private readonly latestByKey = new Map<number, number>()
  /** Σ length of the counted units sighted again later in the window (= Σ (sightings − 1) × length). */
  private repeatedMass = 0

  constructor(private readonly thresholds: PoolThresholds) {}

  token(token: Token): Finding | undefined {
    if (this.length === 0) this.start = token.start
    else if (token.spaced) {
      this.hash = Math.imul(this.hash ^ SPACE, FNV_PRIME)
      this.length++
    }
    this.hash = Math.imul(this.hash ^ token.hash, FNV_PRIME)
    this.length += token.end - token.start
    if (token.hasWordChar) this.hasWordChar = true
    return token.endsSentence ? this.endUnit(token.end) : undefined
  }

  lineEnd(position: number): Finding | undefined {
    return this.endUnit(position + 1)
  }

  private endUnit(verifiedAt: number): Finding | undefined {
    const length = this.length
    if (length === 0) return undefined
    const counted = length >= 2 && this.hasWordChar
    const repeat = this.enter(unitKey(this.hash, length), length, this.start, counted)
    this.hash = FNV_OFFSET
    this.length = 0
    this.hasWordChar = false
    return repeat ? this.verdict(verifiedAt) : undefined
  }

  /** Adds a unit to the window; returns whether it is a counted unit already sighted there. */
  private enter(key: number, length: number, start: number, counted: boolean): boolean {
    const unit = this.base + this.keys.length
    this.keys.push(key)
    this.lengths.push(length)
    this.starts.push(start)
    this.counted.push(counted)
    this.nextSighting.push(NONE)
    this.windowLength += length
    let repeat = false
    if (counted) {
      const latest = this.latestByKey.get(key)
      if (latest !== undefined) {
        this.nextSighting[latest - this.base] = unit
        this.repeatedMass += length
        repeat = true
      }
      this.latestByKey.set(key, unit)
    }
    const { windowChars, windowUnits } = this.thresholds
    while (this.windowLength > windowChars && this.keys.length - this.head > windowUnits) this.leaveOldest()
    if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head)
      this.lengths = this.lengths.slice(this.head)
      this.starts = this.starts.slice(this.head)
      this.counted = this.counted.slice(this.head)
      this.nextSighting = this.nextSighting.slice(this.head)
      this.base += this.head
      this.head = 0
    }
    return repeat
  }

  private leaveOldest(): void {
    const index = this.head++
    this.windowLength -= this.lengths[index]
    if (!this.counted[index]) return
    if (this.nextSighting[index] !== NONE) this.repeatedMass -= this.lengths[index]
    else this.latestByKey.delete(this.keys[index])
  }

  /**
   * Measures the three ratios over every stretch from a unit of the window to the newest one, newest
   * first. A stretch counts when it spans at least `windowChars` (no stretch shorter than the window
   * the thresholds were calibrated on can pass on its own) or starts at the window's oldest unit; the
   * longest passing one gives `loopStart`: its first unit sighted again (see the file's header). A
   * stretch longer than repeatedMass / minCoverage cannot pass, so the walk stops there: in normal
   * text that is a few units.
   */
  private verdict(verifiedAt: number): Finding | undefined {
    const { minRepeatedChars, minCoverage, minConcentration, windowChars } = this.thresholds
    const windowRepeated = this.repeatedMass
    if (minRepeatedChars === 0 || windowRepeated < minRepeatedChars) return undefined
    const { lengths, counted, nextSighting, head } = this
    const longest = minCoverage > 0 ? windowRepeated / minCoverage : Infinity
    let chars = 0
    let repeated = 0
    let sightings = 0
    let distinct = 0
    let firstSightedAgain = NONE
    let loopStartUnit = NONE
    let loopRepeated = 0
    for (let i = this.keys.length - 1; i >= head; i--) {
      chars += lengths[i]
      if (chars > longest) break
      if (counted[i]) {
        sightings++
        if (nextSighting[i] === NONE) distinct++
        else {
          repeated += lengths[i]
          firstSightedAgain = i
        }
      }
      if ((chars >= windowChars || i === head) && repeated >= minRepeatedChars
        && repeated >= minCoverage * chars && sightings >= minConcentration * distinct) {
        loopStartUnit = firstSightedAgain
        loopRepeated = repeated
      }
    }
    if (loopStartUnit === NONE) return undefined
    return { rule: 'phrase-pool', loopStart: this.starts[loopStartUnit], repeatedChars: loopRepeated, verifiedAt }
  }
}
