import { describe, expect, it } from 'vitest'
import type { RuleFinding } from '../../src/detector/finding.ts'
import { UnitPool, type PoolThresholds } from '../../src/detector/rules/unit-pool.ts'

interface Entry { key: number; length: number; start: number; counted: boolean }

/**
 * The pool's verdict recomputed from scratch over the units so far (no running state): the window, then
 * every stretch from one of its units to the newest, newest first, as unit-pool.ts describes it.
 */
function verdictFromScratch(units: Entry[], thresholds: PoolThresholds, verifiedAt: number): RuleFinding | undefined {
  const newest = units[units.length - 1]!
  // A verdict is taken when the new unit was sighted in the window it joined (before the oldest units left).
  const before = units.slice(windowStart(units.slice(0, -1), thresholds), -1)
  if (!newest.counted || !before.some((unit) => unit.counted && unit.key === newest.key)) return undefined
  const window = units.slice(windowStart(units, thresholds))
  const sightedAgain = window.map((unit, i) => unit.counted && window.slice(i + 1).some((later) => later.counted && later.key === unit.key))
  const windowRepeated = window.reduce((sum, unit, i) => sum + (sightedAgain[i] ? unit.length : 0), 0)
  if (thresholds.minRepeatedChars === 0 || windowRepeated < thresholds.minRepeatedChars) return undefined
  const longest = thresholds.minCoverage > 0 ? windowRepeated / thresholds.minCoverage : Infinity
  let found: RuleFinding | undefined
  let chars = 0
  let repeated = 0
  let sightings = 0
  let distinct = 0
  let firstSightedAgain = -1
  for (let i = window.length - 1; i >= 0; i--) {
    const unit = window[i]!
    chars += unit.length
    if (chars > longest) break
    if (unit.counted) {
      sightings++
      if (sightedAgain[i]) {
        repeated += unit.length
        firstSightedAgain = i
      } else distinct++
    }
    if (chars < thresholds.minStretchChars && i !== 0) continue
    if (repeated >= thresholds.minRepeatedChars && repeated >= thresholds.minCoverage * chars && sightings >= thresholds.minConcentration * distinct) {
      found = { rule: 'phrase-pool', loopStart: window[firstSightedAgain]!.start, repeatedChars: repeated, verifiedAt }
    }
  }
  return found
}

/** The window's oldest unit: as many of the oldest units leave as can while both bounds still hold. */
function windowStart(units: Entry[], thresholds: PoolThresholds): number {
  let oldest = 0
  let windowLength = units.reduce((sum, unit) => sum + unit.length, 0)
  while (windowLength > thresholds.windowChars && units.length - oldest > thresholds.windowUnits) windowLength -= units[oldest++]!.length
  return oldest
}

/** A seeded stream of units drawn from `vocabulary` keys (each key with its own length), some of them syntax. */
function* units(seed: number, vocabulary: number, count: number): Generator<Entry> {
  let state = seed
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 8
  let start = 0
  for (let i = 0; i < count; i++) {
    const key = next() % vocabulary
    const length = 1 + (Math.imul(key, 2654435761) >>> 27)
    yield { key, length, start, counted: key % 13 !== 0 }
    start += length + 1
  }
}

describe('unit pool', () => {
  it.each([
    ['the tool side\'s wide window (its ring doubles from 64 units to 1,024)', { minRepeatedChars: 14336, windowChars: 16384, windowUnits: 1, minStretchChars: 16384, minCoverage: 0.7, minConcentration: 8 }, 60, 513],
    ['the reasoning window (its ring wraps around many times)', { minRepeatedChars: 512, windowChars: 1024, windowUnits: 32, minStretchChars: 1024, minCoverage: 0.7, minConcentration: 4 }, 8, 33],
    ['a window of up to 200 units, low thresholds (a verdict at most units)', { minRepeatedChars: 64, windowChars: 256, windowUnits: 200, minStretchChars: 128, minCoverage: 0.3, minConcentration: 1.5 }, 25, 65],
  ] as const)('gives the verdict recomputed from scratch at every unit: %s', (_name, thresholds, vocabulary, minWidest) => {
    const pool = new UnitPool('phrase-pool', thresholds)
    const seen: Entry[] = []
    let verdicts = 0
    let widest = 0
    for (const unit of units(vocabulary, vocabulary, 2500)) {
      seen.push(unit)
      widest = Math.max(widest, seen.length - windowStart(seen, thresholds))
      const verifiedAt = unit.start + unit.length
      const expected = verdictFromScratch(seen, thresholds, verifiedAt)
      expect(pool.add(unit.key, unit.length, unit.start, unit.counted, verifiedAt)).toEqual(expected)
      if (expected) verdicts++
    }
    expect(verdicts).toBeGreaterThan(0)
    expect(widest).toBeGreaterThanOrEqual(minWidest)
  })
})
