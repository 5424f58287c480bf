// phrase pool: a small vocabulary of short units reshuffled without any period, units equal verbatim. The shape dsh-loop-guard reports is
// "Go. / OK. / Writing. / Let me write." for 330,188 chars of reasoning (26 phrases, 5,569 sightings),
// and the same in visible text (44,387 chars), sometimes on one line with no newline at all. Units
// are lines and sentences (units.ts), compared verbatim after normalisation; the window and the
// three ratios (repeated mass, coverage, concentration) are unit-pool.ts's, with `minStretchChars` =
// `windowChars`. The reasoning/text window reaches back at least `windowUnits` units, so a pool of
// long sentences is seen enough times in it (a window of 1,024 chars held only ~20 sightings of
// 52-char sentences: a 5-sentence pool stayed at concentration 3.9 for 7,000 chars).
// Concentration is what lets a code block quoted twice (before/after: every line seen ~2 times)
// through, while a pool sees each phrase 7–23 times (dsh-loop-guard's measurements). It also sets the latency: a
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
// Only prose units count, on every side: units that look like data or quoted tool output by their
// own shape (identical log lines, rows of a lookup table, JSON and CSV records, code; units.ts) are
// left to the novelty rule's data level and the exact rules' `dataMinSpan`
// (docs/detector.md#confidence). On the tool side, whose text is files, that is judged unit by unit
// (CLDR's dayPeriods.json, a file of a few JSON lines in many orders, is data), against the tool
// thresholds.

import { FNV_PRIME } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'
import { UnitPool, type PoolThresholds } from './unit-pool.ts'
import type { Unit, UnitRule } from '../text/units.ts'

/**
 * A unit's key in the window: its hash mixed with its length, kept to 31 bits so V8 stores it as a
 * small integer (a double key costs a heap number per lookup: 4 % of the detector's instructions). Two
 * distinct units share a key with odds 2^-31 per pair, about one pair in 4,000 full windows; a shared key
 * only adds one unit's length to the repeated mass, far below what the thresholds need.
 */
export function unitKey(hash: number, length: number): number {
  return Math.imul(hash ^ length, FNV_PRIME) >>> 1
}

export class PhrasePoolRule implements UnitRule {
  private readonly pool: UnitPool

  constructor(thresholds: PoolThresholds) {
    this.pool = new UnitPool('phrase-pool', thresholds)
  }

  unit(unit: Unit): RuleFinding | undefined {
    const counted = unit.counted && !unit.shapedLikeData
    return this.pool.add(unitKey(unit.key, unit.length), unit.length, unit.start, counted, unit.end)
  }
}
