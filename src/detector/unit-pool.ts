// The window and the verdict of the phrase-pool rule (phrase-pool.ts: units equal verbatim), apart
// from the rule that keys its units. The rule gives each unit a key; the pool keeps
// a recent window of units: at least `windowChars` normalised chars and at least `windowUnits` units,
// whichever reaches further back. Memory is bounded by max(windowChars, windowUnits) units. Each time
// a unit already in the window ends, the ratios are measured over every stretch from a unit of the
// window to now that spans at least `minStretchChars` (the length the thresholds were calibrated on)
// or starts at the window's oldest unit, so a pool is judged from where it began, not diluted by the
// productive text before it, and the rule trips when all three hold on one stretch:
//   repeated mass  Σ (sightings − 1) × length  ≥ minRepeatedChars   (enough text is repetition)
//   coverage       repeated mass / stretch     ≥ minCoverage        (most of the stretch is repetition)
//   concentration  sightings / distinct units  ≥ minConcentration
// Concentration is what lets a code block quoted twice (before/after: every line seen ~2 times)
// through, while a pool sees each phrase 7–23 times (seed measurements).
// `loopStart` is the first unit of the longest passing stretch that is sighted again. That is where the
// pool began: a pool's ratios grow as it goes on, so the stretch from its first unit passes as soon as
// any does, and it is still in the window then. The earliest offset the rule can vouch for is the
// window's oldest unit.
//
// The walk over the stretches stops where no longer one can reach the coverage (repeated mass /
// coverage chars), so it costs only when the window is mostly repetition, and at most the window.
// The verdict is taken when a unit ends, at a fixed offset of the text, so it does not depend on delta
// boundaries.

import type { Finding } from './finding.ts'
import type { RuleName } from './types.ts'

export interface PoolThresholds {
  readonly minRepeatedChars: number
  readonly windowChars: number
  readonly windowUnits: number
  /** Shortest stretch judged on its own (a stretch from the window's oldest unit is judged at any length). */
  readonly minStretchChars: number
  readonly minCoverage: number
  readonly minConcentration: number
}

const NONE = -1

export class UnitPool {
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

  constructor(private readonly rule: RuleName, private readonly thresholds: PoolThresholds) {}

  /**
   * Adds a unit (`key` a 31-bit integer, so V8 keeps it a small integer; `counted` false for syntax) and
   * returns the finding when the window now passes, judged at `verifiedAt`.
   */
  add(key: number, length: number, start: number, counted: boolean, verifiedAt: number): Finding | undefined {
    return this.enter(key, length, start, counted) ? this.verdict(verifiedAt) : undefined
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
   * first. A stretch counts when it spans at least `minStretchChars` or starts at the window's oldest
   * unit; the longest passing one gives `loopStart`: its first unit sighted again. A stretch longer than
   * repeatedMass / minCoverage cannot pass, so the walk stops there: in normal text that is a few units.
   */
  private verdict(verifiedAt: number): Finding | undefined {
    const { minRepeatedChars, minCoverage, minConcentration, minStretchChars } = this.thresholds
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
      if (chars < minStretchChars && i !== head) continue
      if (repeated >= minRepeatedChars && repeated >= minCoverage * chars && sightings >= minConcentration * distinct) {
        loopStartUnit = firstSightedAgain
        loopRepeated = repeated
      }
    }
    if (loopStartUnit === NONE) return undefined
    return { rule: this.rule, loopStart: this.starts[loopStartUnit], repeatedChars: loopRepeated, verifiedAt }
  }
}
