// One side of one call (reasoning, visible text or tool arguments). Characters go into a ring of recent
// text the rules share (the cycle rule writes and indexes each char in one pass). At each multiple of
// `cycleCheckStride` the tokenizer reads that stride for the token and unit rules, in text order, then
// the symbol-run and cycle checks run at its end. So every rule but identical-chunks decides on the text
// alone, whatever the delta boundaries, and memory is the ring and the rules' bounded state.

import { CycleRule } from './rules/cycle.ts'
import type { RuleFinding } from './finding.ts'
import { IdenticalChunksRule } from './rules/identical-chunks.ts'
import { JsonUnescaper } from './text/json-unescape.ts'
import { NoveltyRule } from './rules/novelty.ts'
import { PhrasePoolRule } from './rules/phrase-pool.ts'
import type { DetectorConfig } from './settings.ts'
import { SymbolRunRule } from './rules/symbol-run.ts'
import { TokenPeriodRule } from './rules/token-period.ts'
import { Tokenizer } from './text/tokenizer.ts'
import type { Side } from './types.ts'
import { UnitReader } from './text/units.ts'

export class SideScanner {
  /** UTF-16 length of the side's text so far. */
  length = 0
  /** The side's recent characters, offset i at `i & mask`; shared by the rules. */
  private readonly ring: Uint16Array
  private readonly mask: number
  private readonly cycle: CycleRule
  /** Feeds the token-period and unit rules. */
  private readonly tokenizer: Tokenizer
  private readonly symbolRun: SymbolRunRule
  private readonly chunks: IdenticalChunksRule
  private readonly stride: number
  private untilStrideEnd: number

  constructor(side: Side, config: DetectorConfig) {
    const tool = side === 'tool'
    const reasoning = side === 'reasoning'
    const cycle = {
      maxPeriod: tool ? config.toolCycleMaxPeriod : reasoning ? config.reasoningCycleMaxPeriod : config.textCycleMaxPeriod,
      minSpan: tool ? config.toolCycleMinSpan : reasoning ? config.reasoningCycleMinSpan : config.textCycleMinSpan,
      minPeriods: config.cycleMinPeriods,
      dataMinSpan: tool ? config.toolDataMinSpan : config.dataMinSpan,
      writesData: tool,
      codeMinSpan: config.codeMinSpan,
    }
    let size = CycleRule.ringSize(cycle)
    while (size < 2 * config.cycleCheckStride) size *= 2
    this.ring = new Uint16Array(size)
    this.mask = size - 1
    this.cycle = new CycleRule(cycle, this.ring)
    const poolMinRepeatedChars = tool ? config.toolPoolMinRepeatedChars
      : reasoning ? config.reasoningPoolMinRepeatedChars : config.textPoolMinRepeatedChars
    const poolMinConcentration = tool ? config.toolPoolMinConcentration : config.poolMinConcentration
    const pool = new PhrasePoolRule({
      minRepeatedChars: poolMinRepeatedChars,
      windowChars: tool ? config.toolPoolWindowChars : config.poolWindowChars,
      windowUnits: tool ? 1 : config.poolWindowUnits,
      minStretchChars: tool ? config.toolPoolWindowChars : config.poolWindowChars,
      minCoverage: config.poolMinCoverage,
      minConcentration: poolMinConcentration,
    })
    const tokenPeriod = new TokenPeriodRule({
      minRepeats: tool ? config.toolTokenPeriodMinRepeats : config.tokenPeriodMinRepeats,
      maxBlock: config.tokenPeriodMaxBlock,
      minDistinct: config.tokenPeriodMinDistinct,
      dataMinSpan: tool ? config.toolDataMinSpan : config.dataMinSpan,
      writesData: tool,
      codeMinSpan: config.codeMinSpan,
    }, this.ring, this.mask)
    const novelty = new NoveltyRule({
      minSpan: tool ? config.toolNoveltyMinSpan : config.noveltyMinSpan,
      slottedMinSpan: tool ? config.toolNoveltyMinSpan : config.noveltySlottedMinSpan,
      dataMinSpan: tool ? config.toolNoveltyMinSpan : config.noveltyDataMinSpan,
      windowChars: config.noveltyWindowChars,
      minCoverage: config.noveltyMinCoverage,
      middleMinCoverage: config.noveltyMiddleMinCoverage,
      middleMinSpan: tool ? config.toolNoveltyMinSpan : config.noveltyMiddleMinSpan,
      weakMinCoverage: config.noveltyWeakMinCoverage,
      weakMinSpan: tool ? config.toolNoveltyMinSpan : config.noveltyWeakMinSpan,
      dataMinCoverage: config.noveltyDataMinCoverage,
      historyTokens: config.noveltyHistoryTokens,
      minPeriods: config.noveltyMinPeriods,
      newMaterialShare: config.noveltyNewMaterialShare,
      newMaterialMinPeriod: config.noveltyNewMaterialMinPeriod,
      // Files repeat their wording legitimately: prose written into one is judged at the tool side's span.
      echoMinSpan: tool ? 0 : config.noveltyEchoMinSpan,
      echoMinShare: config.noveltyEchoMinShare,
      echoMaxPeriod: config.noveltyEchoMaxPeriod,
      echoMinPeriods: config.noveltyEchoMinPeriods,
      plainMinShare: config.noveltyPlainMinShare,
      dataMinOrder: config.noveltyDataMinOrder,
      weakLevelsReadWords: !tool,
    })
    this.tokenizer = new Tokenizer(novelty, new UnitReader(pool, novelty, tool), tokenPeriod, tool ? new JsonUnescaper() : undefined)
    this.symbolRun = new SymbolRunRule({
      minChars: tool ? config.toolSymbolRunMinChars : config.symbolRunMinChars,
      dividerMinChars: tool ? config.toolDividerRunMinChars : config.dividerRunMinChars,
      gridMinChars: tool ? config.toolDataMinSpan : config.dataMinSpan,
    }, tool)
    this.chunks = new IdenticalChunksRule(tool ? config.toolMaxIdenticalChunks : config.maxIdenticalChunks)
    this.stride = config.cycleCheckStride
    this.untilStrideEnd = this.stride
  }

  push(delta: string): RuleFinding | undefined {
    let length = this.length
    for (let i = 0; i < delta.length;) {
      const take = Math.min(delta.length - i, this.untilStrideEnd)
      this.cycle.write(delta, i, i + take, length)
      i += take
      length += take
      this.untilStrideEnd -= take
      if (this.untilStrideEnd > 0) break
      this.untilStrideEnd = this.stride
      const found = this.examine(length - this.stride, length)
      if (found) {
        this.length = length + delta.length - i
        return found
      }
    }
    this.length = length
    return this.chunks.add(delta, length)
  }

  /** Runs the rules over the stride at offsets [from, to), then the cycle check at its end. */
  private examine(from: number, to: number): RuleFinding | undefined {
    return this.tokenizer.scan(this.ring, this.mask, from, to) ?? this.symbolRun.scan(this.ring, this.mask, from, to) ?? this.cycle.check(to)
  }
}
