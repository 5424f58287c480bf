// One model call: the three sides are watched independently, and the first rule that fires on any
// side is the call's Trip; after it every push returns that same Trip (the caller cuts the stream).

import type { RuleFinding } from './finding.ts'
import { resolveDetectorConfig, type DetectorConfig } from './settings.ts'
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
  /** The resolved thresholds this detector runs with (defaults filled in). */
  readonly config: DetectorConfig
  // One field per side, not a record keyed by the side: a keyed load on every push costs 2 % of the
  // detector's time on 3-char deltas.
  private reasoning: SideScanner | undefined
  private text: SideScanner | undefined
  private tool: SideScanner | undefined
  private trip: Trip | undefined

  /**
   * A detector for one new model call.
   * @param config - thresholds to override; every field left out takes its default (`DEFAULT_CONFIG`).
   * @throws Error naming the field, the value and what is allowed, on an unknown field, a wrong type, a
   *   value out of range, or a combination under which a rule could never fire.
   */
  constructor(config?: Partial<DetectorConfig>) {
    this.config = resolveDetectorConfig(config)
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
    const scanner = (side === 'text' ? this.text : side === 'reasoning' ? this.reasoning : side === 'tool' ? this.tool : undefined) ?? this.open(side)
    if (delta.length === 0) return undefined
    const finding: RuleFinding | undefined = scanner.push(delta)
    if (finding) {
      const { rule, loopStart, repeatedChars } = finding
      this.trip = Object.freeze({ rule, side, at: scanner.length, repeatedChars, loopStart })
    }
    return this.trip
  }

  private open(side: Side): SideScanner {
    if (!SIDES.includes(side)) throw new TypeError(`loop-breaker: side must be one of ${SIDES.join(', ')} (got ${String(side)})`)
    const scanner = new SideScanner(side, this.config)
    this[side] = scanner
    return scanner
  }
}
