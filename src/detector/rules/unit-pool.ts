// The window and the verdict of the phrase-pool rule (phrase-pool.ts keys the units). The window holds
// at least `windowChars` normalised chars and at least `windowUnits` units. Each time a unit already in
// the window ends, the ratios are measured over every stretch from a unit of the window to now that
// spans `minStretchChars` or starts at the window's oldest unit, so a pool is judged from where it
// began, not diluted by the productive text before it. The rule trips when all three hold on one stretch:
//   repeated mass  Σ (sightings − 1) × length  ≥ minRepeatedChars   (enough text is repetition)
//   coverage       repeated mass / stretch     ≥ minCoverage        (most of the stretch is repetition)
//   concentration  sightings / distinct units  ≥ minConcentration
// Concentration lets a code block quoted twice (before/after: every line seen ~2 times) through, while a
// pool sees each phrase 7–23 times (dsh-loop-guard's measurements).
// The window is a ring of typed arrays that doubles when full and never allocates otherwise: inside the
// agent loop allocation costs cache misses (docs/development.md#benchmarks).

import type { RuleFinding } from '../finding.ts'
import { typedTables } from '../text/typed-tables.ts'
import type { RuleName } from '../types.ts'

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
/** Room for a reasoning or text window of short units; a longer window doubles it. */
const INITIAL_CAPACITY = 64

export class UnitPool {
  // The window: unit numbers [oldest, next), unit u at ring slot `u & mask` of each table.
  private keys: Int32Array
  private lengths: Int32Array
  private starts: Int32Array
  /** 1 for a counted unit, 0 for syntax. */
  private counted: Int32Array
  /** The unit number of the next sighting of the same unit in the window, or NONE. */
  private nextSighting: Int32Array
  private mask = INITIAL_CAPACITY - 1
  private oldest = 0
  private next = 0
  private windowLength = 0
  /** The unit number of each counted unit's latest sighting in the window. */
  private readonly latestByKey = new Map<number, number>()
  /** Σ length of the counted units sighted again later in the window (= Σ (sightings − 1) × length). */
  private repeatedMass = 0

  constructor(private readonly rule: RuleName, private readonly thresholds: PoolThresholds) {
    ;[this.keys, this.lengths, this.starts, this.counted, this.nextSighting] = typedTables(Int32Array, 5, INITIAL_CAPACITY)
  }

  /** Adds a unit (`key` in 31 bits: phrase-pool.ts `unitKey`) and returns the finding when the window now passes. */
  add(key: number, length: number, start: number, counted: boolean, verifiedAt: number): RuleFinding | undefined {
    return this.enter(key, length, start, counted) ? this.verdict(verifiedAt) : undefined
  }

  /** Adds a unit to the window; returns whether it is a counted unit already sighted there. */
  private enter(key: number, length: number, start: number, counted: boolean): boolean {
    const unit = this.next
    if (unit - this.oldest > this.mask) this.grow()
    this.next = unit + 1
    const at = unit & this.mask
    this.keys[at] = key
    this.lengths[at] = length
    this.starts[at] = start
    this.counted[at] = counted ? 1 : 0
    this.nextSighting[at] = NONE
    this.windowLength += length
    let repeat = false
    if (counted) {
      const latest = this.latestByKey.get(key)
      if (latest !== undefined) {
        this.nextSighting[latest & this.mask] = unit
        this.repeatedMass += length
        repeat = true
      }
      this.latestByKey.set(key, unit)
    }
    const { windowChars, windowUnits } = this.thresholds
    while (this.windowLength > windowChars && this.next - this.oldest > windowUnits) this.leaveOldest()
    return repeat
  }

  /** Doubles the ring, each unit of the window moved to its slot under the new mask. */
  private grow(): void {
    const capacity = 2 * (this.mask + 1)
    const mask = capacity - 1
    const tables = typedTables(Int32Array, 5, capacity)
    const old = [this.keys, this.lengths, this.starts, this.counted, this.nextSighting]
    for (let unit = this.oldest; unit < this.next; unit++) {
      for (let table = 0; table < 5; table++) tables[table][unit & mask] = old[table][unit & this.mask]
    }
    ;[this.keys, this.lengths, this.starts, this.counted, this.nextSighting] = tables
    this.mask = mask
  }

  private leaveOldest(): void {
    const at = this.oldest++ & this.mask
    this.windowLength -= this.lengths[at]
    if (this.counted[at] === 0) return
    if (this.nextSighting[at] !== NONE) this.repeatedMass -= this.lengths[at]
    else this.latestByKey.delete(this.keys[at])
  }

  /**
   * The verdict, taken when a unit ends (at a fixed offset of the text, whatever the deltas). `loopStart`
   * is the first unit sighted again of the longest passing stretch: a pool's ratios grow as it goes on,
   * so the stretch from its first unit passes as soon as any does, and the window still holds it. The
   * walk stops at repeatedMass / minCoverage chars, which no longer stretch can pass: a few units in normal text.
   */
  private verdict(verifiedAt: number): RuleFinding | undefined {
    const { minRepeatedChars, minCoverage, minConcentration, minStretchChars } = this.thresholds
    const windowRepeated = this.repeatedMass
    if (minRepeatedChars === 0 || windowRepeated < minRepeatedChars) return undefined
    const { lengths, counted, nextSighting, oldest, mask } = this
    const longest = minCoverage > 0 ? windowRepeated / minCoverage : Infinity
    let chars = 0
    let repeated = 0
    let sightings = 0
    let distinct = 0
    let firstSightedAgain = NONE
    let loopStartUnit = NONE
    let loopRepeated = 0
    for (let unit = this.next - 1; unit >= oldest; unit--) {
      const at = unit & mask
      chars += lengths[at]
      if (chars > longest) break
      if (counted[at] === 1) {
        sightings++
        if (nextSighting[at] === NONE) distinct++
        else {
          repeated += lengths[at]
          firstSightedAgain = unit
        }
      }
      if (chars < minStretchChars && unit !== oldest) continue
      if (repeated >= minRepeatedChars && repeated >= minCoverage * chars && sightings >= minConcentration * distinct) {
        loopStartUnit = firstSightedAgain
        loopRepeated = repeated
      }
    }
    if (loopStartUnit === NONE) return undefined
    return { rule: this.rule, loopStart: this.starts[loopStartUnit & mask], repeatedChars: loopRepeated, verifiedAt }
  }
}
