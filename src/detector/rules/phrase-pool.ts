// phrase pool: a small vocabulary of short units reshuffled without any period, units equal verbatim
// after normalisation: the shape dsh-loop-guard reports, "Go. / OK. / Writing. / Let me write." for
// 330,188 chars of reasoning (26 phrases, 5,569 sightings), sometimes on one line. The window, the
// three ratios and `loopStart` are unit-pool.ts's; in reasoning and text the window also reaches back
// `windowUnits` units, so a pool of long sentences fits in it (settings.ts `poolWindowUnits`).
// Latency: a pool of K units of L chars needs 4K sightings and 717 chars of repetition (0.7 of a
// 1,024-char stretch), so it trips about (L + 1) × max(4K, K + ⌈717 / L⌉) chars after onset.
// Only prose units count, on every side: units that look like data by their own shape are left to the
// novelty rule's data level and the exact rules' data span (docs/detector.md#confidence).

import { FNV_PRIME } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'
import { UnitPool, type PoolThresholds } from './unit-pool.ts'
import type { Unit, UnitRule } from '../text/units.ts'

/**
 * A unit's key in the window: its hash mixed with its length, in 31 bits so that V8 keeps it a small
 * integer (a double key costs a heap number per lookup). A key two units share (odds 2^-31 a pair) only
 * adds one unit's length to the repeated mass.
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
