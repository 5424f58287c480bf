// One side of one call (reasoning, visible text or tool arguments). The text is examined one stride
// (`cycleCheckStride` chars) at a time: when a push carries the side past a multiple of the stride,
// the rules read the stretch up to it, each in its own tight loop, and the cycle check runs at its
// end. So every rule but identical-chunks decides on the text alone, whatever the delta boundaries
// (split-invariance up to the stride: the verdict is the same, and the push that reports it is the
// one that reaches the end of the stride where the evidence completed). Keeps the rules' bounded
// state and less than one stride of text, never the text itself. When two rules complete evidence in
// the same stretch, the one completed first in the text wins.

import { CycleRule } from './cycle.ts'
import type { Finding } from './finding.ts'
import { IdenticalChunksRule } from './identical-chunks.ts'
import { JsonUnescaper } from './json-unescape.ts'
import { PhrasePoolRule } from './phrase-pool.ts'
import type { DetectorConfig } from './settings.ts'
import { TokenPeriodRule } from './token-period.ts'
import type { Side } from './types.ts'

function earlier(first: Finding | undefined, second: Finding | undefined): Finding | undefined {
  if (first === undefined) return second
  if (second === undefined) return first
  return second.verifiedAt < first.verifiedAt ? second : first
}

export class SideScanner {
  /** UTF-16 length of the side's text so far. */
  length = 0
  /** How much of it the rules have read: always a multiple of the stride. */
  private examined = 0
  /** What was streamed past `examined`: less than one stride. */
  private pending = ''
  private readonly cycle: CycleRule
  private readonly pool: PhrasePoolRule
  private readonly tokens: TokenPeriodRule
  private readonly chunks: IdenticalChunksRule
  private readonly stride: number

  constructor(side: Side, config: DetectorConfig) {
    const tool = side === 'tool'
    const reasoning = side === 'reasoning'
    this.cycle = new CycleRule({
      maxPeriod: tool ? config.toolCycleMaxPeriod : reasoning ? config.reasoningCycleMaxPeriod : config.textCycleMaxPeriod,
      minSpan: tool ? config.toolCycleMinSpan : reasoning ? config.reasoningCycleMinSpan : config.textCycleMinSpan,
      minPeriods: config.cycleMinPeriods,
    })
    this.pool = new PhrasePoolRule({
      minRepeatedChars: tool ? config.toolPoolMinRepeatedChars
        : reasoning ? config.reasoningPoolMinRepeatedChars : config.textPoolMinRepeatedChars,
      windowChars: tool ? config.toolPoolWindowChars : config.poolWindowChars,
      minCoverage: config.poolMinCoverage,
      minConcentration: tool ? config.toolPoolMinConcentration : config.poolMinConcentration,
    }, tool ? new JsonUnescaper() : undefined)
    this.tokens = new TokenPeriodRule({
      minRepeats: tool ? config.toolTokenPeriodMinRepeats : config.tokenPeriodMinRepeats,
      maxBlock: config.tokenPeriodMaxBlock,
      minDistinct: config.tokenPeriodMinDistinct,
    }, tool ? new JsonUnescaper() : undefined)
    this.chunks = new IdenticalChunksRule(tool ? config.toolMaxIdenticalChunks : config.maxIdenticalChunks)
    this.stride = config.cycleCheckStride
  }

  push(delta: string): Finding | undefined {
    this.pending += delta
    this.length += delta.length
    const stride = this.stride
    const ready = this.length - (this.length % stride) - this.examined
    if (ready > 0) {
      const text = this.pending
      this.pending = text.slice(ready)
      const found = this.examine(text, ready)
      if (found) return found
    }
    return this.chunks.add(delta, this.length)
  }

  /** Runs the rules over `text[0..count)`, one stride at a time, cycle check at each stride's end. */
  private examine(text: string, count: number): Finding | undefined {
    for (let from = 0; from < count; from += this.stride) {
      const to = from + this.stride
      const position = this.examined
      this.cycle.append(text, from, to, position)
      const found = earlier(this.pool.scan(text, from, to, position), this.tokens.scan(text, from, to, position))
      this.examined += this.stride
      if (found) return found
      const cycle = this.cycle.check(this.examined)
      if (cycle) return cycle
    }
    return undefined
  }
}
