// One side of one call (reasoning, visible text or tool arguments): feeds every character, in order,
// to the character-level rules and runs the cycle check at fixed offsets of the side's text. Keeps
// only the rules' bounded state, never the text itself.
//
// Tool arguments stream as JSON, so a file's line breaks arrive as the two characters `\n`; on the
// tool side the phrase-pool and token rules read `\n`, `\r` and `\t` escapes as the white space they
// stand for (the cycle rule compares the raw characters, which is equivalent for exact repetition).

import { CycleRule } from './cycle.ts'
import type { Finding } from './finding.ts'
import { IdenticalChunksRule } from './identical-chunks.ts'
import { PhrasePoolRule } from './phrase-pool.ts'
import type { DetectorConfig } from './settings.ts'
import { TokenPeriodRule } from './token-period.ts'
import type { Side } from './types.ts'

const BACKSLASH = 92

function escapedWhitespace(code: number): number {
  if (code === 110 || code === 114) return 10 // \n, \r
  if (code === 116) return 9 // \t
  return -1
}

export class SideScanner {
  /** UTF-16 length of the side's text so far. */
  length = 0
  private readonly cycle: CycleRule
  private readonly pool: PhrasePoolRule
  private readonly tokens: TokenPeriodRule
  private readonly chunks: IdenticalChunksRule
  private readonly stride: number
  private readonly decodesEscapes: boolean
  private escapePending = false

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
    })
    this.tokens = new TokenPeriodRule({
      minRepeats: tool ? config.toolTokenPeriodMinRepeats : config.tokenPeriodMinRepeats,
      maxBlock: config.tokenPeriodMaxBlock,
      minDistinct: config.tokenPeriodMinDistinct,
    })
    this.chunks = new IdenticalChunksRule(tool ? config.toolMaxIdenticalChunks : config.maxIdenticalChunks)
    this.stride = config.cycleCheckStride
    this.decodesEscapes = tool
  }

  push(delta: string): Finding | undefined {
    const stride = this.stride
    for (let i = 0; i < delta.length; i++) {
      const code = delta.charCodeAt(i)
      const position = this.length++
      this.cycle.add(position, code)
      const finding = this.readText(position, code)
        ?? (this.length % stride === 0 ? this.cycle.check(this.length) : undefined)
      if (finding) return finding
    }
    return this.chunks.add(delta, this.length)
  }

  private readText(position: number, code: number): Finding | undefined {
    if (this.decodesEscapes) {
      if (this.escapePending) {
        this.escapePending = false
        const whitespace = escapedWhitespace(code)
        if (whitespace >= 0) code = whitespace
        else {
          const finding = this.readChar(position - 1, BACKSLASH)
          if (finding) return finding
        }
      } else if (code === BACKSLASH) {
        this.escapePending = true
        return undefined
      }
    }
    return this.readChar(position, code)
  }

  private readChar(position: number, code: number): Finding | undefined {
    return this.pool.add(position, code) ?? this.tokens.add(position, code)
  }
}
