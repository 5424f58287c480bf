// One model call: the three sides are watched independently, and the first rule that fires on any
// side is the call's Trip; after it every push returns that same Trip (the caller cuts the stream).

import type { RuleFinding } from './finding.ts'
import { DetectorPlan } from './plan.ts'
import type { DetectorConfig } from './settings.ts'
import { SideScanner } from './side-scanner.ts'
import type { Side, Trip } from './types.ts'

const SIDES: readonly Side[] = ['reasoning', 'text', 'tool']

/**
 * The loop detector of one model call. Feed it every delta of the call in stream order; it watches the
 * reasoning, the visible text and the tool-call arguments each on their own, with bounded memory, and
 * reports the first loop any rule sees. Its verdict depends on the text, not on how it was split into
 * deltas (see docs/detector.md).
 */
export class StreamDetector {
  /** The resolved config this detector runs with: thresholds with defaults filled in, each side's rules. */
  readonly plan: DetectorPlan
  // One field per side, not a record keyed by the side: a keyed load on every push costs 2 % of the
  // detector's time on 3-char deltas.
  // null: the side is not watched (its guard is 'off').
  private reasoning: SideScanner | null | undefined
  private text: SideScanner | null | undefined
  private tool: SideScanner | null | undefined
  private trip: Trip | undefined

  /**
   * A detector for one new model call.
   * @param config - a `DetectorPlan` (resolved once, shared by every call), or thresholds to override:
   *   every field left out takes its default (`DEFAULT_CONFIG`) and every side is watched.
   * @throws Error naming the field, the value and what is allowed, on an unknown field, a wrong type, a
   *   value out of range, or a combination under which a rule could never fire.
   */
  constructor(config?: Partial<DetectorConfig> | DetectorPlan) {
    this.plan = DetectorPlan.of(config)
  }

  /** The thresholds this detector runs with (defaults filled in). */
  get config(): DetectorConfig {
    return this.plan.config
  }

  /**
   * Feed one delta of the call.
   * @param side - `'reasoning'`, `'text'` (the visible reply) or `'tool'` (tool-call arguments).
   * @param delta - the delta's text, exactly as streamed (empty deltas are ignored).
   * @returns `undefined` while no rule has seen a loop; then the first `Trip`, and the same frozen
   *   object on every later push, whatever the side.
   * @throws TypeError when `side` is not one of the three sides.
   */
  push(side: Side, delta: string): Trip | undefined {
    if (this.trip) return this.trip
    let scanner = side === 'text' ? this.text : side === 'reasoning' ? this.reasoning : side === 'tool' ? this.tool : undefined
    if (scanner === undefined) scanner = this.open(side)
    if (scanner === null || delta.length === 0) return undefined
    const finding: RuleFinding | undefined = scanner.push(delta)
    if (finding) {
      const { rule, loopStart, repeatedChars } = finding
      this.trip = Object.freeze({ rule, side, at: scanner.length, repeatedChars, loopStart })
    }
    return this.trip
  }

  private open(side: Side): SideScanner | null {
    if (!SIDES.includes(side)) throw new TypeError(`loop-breaker: side must be one of ${SIDES.join(', ')} (got ${String(side)})`)
    const plan = this.plan[side]
    const scanner = plan === undefined ? null : new SideScanner(plan)
    this[side] = scanner
    return scanner
  }
}
