// One model call: the three sides are watched independently, and the first rule that fires on any
// side is the call's Trip; after it every push returns that same Trip (the caller cuts the stream).

import type { Finding } from './finding.ts'
import { resolveDetectorConfig, type DetectorConfig } from './settings.ts'
import { SideScanner } from './side-scanner.ts'
import type { Side, Trip } from './types.ts'

const SIDES: readonly Side[] = ['reasoning', 'text', 'tool']

export class StreamDetector {
  readonly config: DetectorConfig
  private readonly scanners: Partial<Record<Side, SideScanner>> = {}
  private trip: Trip | undefined

  constructor(config?: Partial<DetectorConfig>) {
    this.config = resolveDetectorConfig(config)
  }

  push(side: Side, delta: string): Trip | undefined {
    if (this.trip) return this.trip
    const scanner = this.scanners[side] ?? this.open(side)
    if (delta.length === 0) return undefined
    const finding: Finding | undefined = scanner.push(delta)
    if (finding) {
      const { rule, loopStart, repeatedChars } = finding
      this.trip = Object.freeze({ rule, side, at: scanner.length, repeatedChars, loopStart })
    }
    return this.trip
  }

  private open(side: Side): SideScanner {
    if (!SIDES.includes(side)) throw new TypeError(`loop-breaker: side must be one of ${SIDES.join(', ')} (got ${String(side)})`)
    const scanner = new SideScanner(side, this.config)
    this.scanners[side] = scanner
    return scanner
  }
}
