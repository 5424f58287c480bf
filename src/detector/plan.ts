// A detector config resolved once: the thresholds validated, then translated into each side's per-rule
// settings. The plugin builds one plan per config and every model call's detector and every agent's
// judges read it; the analyzer builds one per replayed config.

import type { CycleThresholds } from './rules/cycle.ts'
import { CycleRule } from './rules/cycle.ts'
import type { NoveltyThresholds } from './rules/novelty.ts'
import type { SymbolRunThresholds } from './rules/symbol-run.ts'
import type { GrowingLineThresholds } from './rules/growing-line.ts'
import type { LetterCycleThresholds } from './rules/letter-cycle.ts'
import type { TokenPeriodThresholds } from './rules/token-period.ts'
import type { DataSpans } from './text/data-like.ts'
import type { PoolThresholds } from './rules/unit-pool.ts'
import { failSetting, resolveDetectorConfig, type DetectorConfig } from './settings.ts'
import type { DetectorGuards, ResolvedDetector, Side, SideGuard } from './types.ts'

/** Every guard a side takes, from the most watched to none. */
export const SIDE_GUARDS: readonly SideGuard[] = ['full', 'verbatim', 'off']

/** Every side watched by every rule, and the judges on. */
export const DEFAULT_GUARDS: DetectorGuards = Object.freeze({ reasoning: 'full', text: 'full', tool: 'full', steps: true })

/** One side's rules, each with its own settings. */
export interface SidePlan {
  /** Tool-call arguments: a file written on purpose, JSON-escaped. */
  readonly tool: boolean
  /** The ring of recent characters the rules share: a power of two. */
  readonly ringSize: number
  /** Characters between two examinations of the side's text. */
  readonly stride: number
  readonly cycle: CycleThresholds
  readonly pool: PoolThresholds
  readonly tokenPeriod: TokenPeriodThresholds
  readonly novelty: NoveltyThresholds
  readonly symbolRun: SymbolRunThresholds
  readonly letterCycle: LetterCycleThresholds
  readonly growingLine: GrowingLineThresholds
  /** Identical deltas in a row that trip; 0: off. */
  readonly maxIdenticalChunks: number
}

function sidePlan(side: Side, config: DetectorConfig, verbatimOnly: boolean): SidePlan {
  const tool = side === 'tool'
  const reasoning = side === 'reasoning'
  // What repeats decides the span an exact repetition needs (text/data-like.ts); the cycle and
  // token-period rules read the same spans.
  const dataSpans: DataSpans = {
    dataMinSpan: tool ? config.toolDataMinSpan : config.dataMinSpan,
    valuesMinSpan: tool ? config.toolDataMinSpan : config.valuesMinSpan,
    writesData: tool,
    codeMinPeriods: config.codeMinPeriods,
  }
  const cycle: CycleThresholds = {
    maxPeriod: tool ? config.toolCycleMaxPeriod : reasoning ? config.reasoningCycleMaxPeriod : config.textCycleMaxPeriod,
    minSpan: tool ? config.toolCycleMinSpan : reasoning ? config.reasoningCycleMinSpan : config.textCycleMinSpan,
    minPeriods: config.cycleMinPeriods,
    dividerMinSpan: config.dividerMinSpan,
    // A rule of several marks is drawn as one of one mark is (symbol-run's divider span).
    lineDividerMinSpan: tool ? config.toolDividerRunMinChars : config.dividerRunMinChars,
    ...dataSpans,
  }
  let ringSize = CycleRule.ringSize(cycle)
  while (ringSize < 2 * config.cycleCheckStride) ringSize *= 2
  const poolWindowChars = tool ? config.toolPoolWindowChars : config.poolWindowChars
  const noveltyMinSpan = tool ? config.toolNoveltyMinSpan : config.noveltyMinSpan
  return {
    tool,
    ringSize,
    stride: config.cycleCheckStride,
    cycle,
    pool: {
      minRepeatedChars: tool ? config.toolPoolMinRepeatedChars : reasoning ? config.reasoningPoolMinRepeatedChars : config.textPoolMinRepeatedChars,
      windowChars: poolWindowChars,
      windowUnits: tool ? 1 : config.poolWindowUnits,
      minStretchChars: poolWindowChars,
      minCoverage: config.poolMinCoverage,
      minConcentration: tool ? config.toolPoolMinConcentration : config.poolMinConcentration,
    },
    tokenPeriod: {
      minRepeats: tool ? config.toolTokenPeriodMinRepeats : config.tokenPeriodMinRepeats,
      maxBlock: config.tokenPeriodMaxBlock,
      minDistinct: config.tokenPeriodMinDistinct,
      ...dataSpans,
    },
    novelty: {
      // The rule's convention: a span of 0 turns it off.
      minSpan: verbatimOnly ? 0 : noveltyMinSpan,
      // The tool side has one level: a file repeats its wording legitimately, so every level waits for the tool span.
      slottedMinSpan: tool ? noveltyMinSpan : config.noveltySlottedMinSpan,
      dataMinSpan: tool ? noveltyMinSpan : config.noveltyDataMinSpan,
      windowChars: config.noveltyWindowChars,
      minCoverage: config.noveltyMinCoverage,
      middleMinCoverage: config.noveltyMiddleMinCoverage,
      middleMinSpan: tool ? noveltyMinSpan : config.noveltyMiddleMinSpan,
      weakMinCoverage: config.noveltyWeakMinCoverage,
      weakMinSpan: tool ? noveltyMinSpan : config.noveltyWeakMinSpan,
      dataMinCoverage: config.noveltyDataMinCoverage,
      historyTokens: config.noveltyHistoryTokens,
      minPeriods: config.noveltyMinPeriods,
      weakMinPeriods: config.noveltyWeakMinPeriods,
      weakPeriodsMaxSpan: config.noveltyWeakPeriodsMaxSpan,
      weakHistoryShare: config.noveltyWeakHistoryShare,
      listMinRestatedShare: config.noveltyListMinRestatedShare,
      newMaterialShare: config.noveltyNewMaterialShare,
      newMaterialMinPeriod: config.noveltyNewMaterialMinPeriod,
      plainMinShare: config.noveltyPlainMinShare,
      dataMinOrder: config.noveltyDataMinOrder,
      itemListMinSpan: config.noveltyItemListMinSpan,
      weakLevelsReadWords: !tool,
    },
    symbolRun: {
      minChars: tool ? config.toolSymbolRunMinChars : config.symbolRunMinChars,
      dividerMinChars: tool ? config.toolDividerRunMinChars : config.dividerRunMinChars,
      gridMinChars: dataSpans.dataMinSpan,
    },
    // Near repetition, as novelty: off when the side's guard is 'verbatim'; files are written on purpose.
    letterCycle: { minSpan: tool || verbatimOnly ? 0 : config.letterCycleMinSpan, minShare: config.letterCycleMinShare },
    // No line is written again as it was, so it is near repetition: off when the side's guard is 'verbatim'.
    growingLine: { minChars: verbatimOnly ? 0 : config.growingLineMinChars },
    maxIdenticalChunks: tool ? config.toolMaxIdenticalChunks : config.maxIdenticalChunks,
  }
}

function checkGuards(guards: Partial<DetectorGuards> | undefined): DetectorGuards {
  if (guards === undefined) return DEFAULT_GUARDS
  if (guards === null || typeof guards !== 'object') failSetting('guards', 'an object', guards)
  const resolved = { ...DEFAULT_GUARDS, ...guards }
  for (const side of ['reasoning', 'text', 'tool'] as const) {
    if (!SIDE_GUARDS.includes(resolved[side])) failSetting(side, `one of ${SIDE_GUARDS.map((guard) => `'${guard}'`).join(', ')}`, resolved[side])
  }
  if (typeof resolved.steps !== 'boolean') failSetting('steps', 'true or false', resolved.steps)
  return Object.freeze(resolved)
}

/**
 * A detector config resolved once: pass it to `new StreamDetector(plan)` for every model call and to
 * `new CompletedCallJudges(plan)` for every agent.
 */
export class DetectorPlan implements ResolvedDetector {
  /** Every threshold, defaults filled in. */
  readonly config: DetectorConfig
  readonly guards: DetectorGuards
  /** Each side's rules; `undefined` for a side whose guard is `'off'`. */
  readonly reasoning: SidePlan | undefined
  readonly text: SidePlan | undefined
  readonly tool: SidePlan | undefined

  /**
   * Validates a config and resolves each side's rules.
   * @param thresholds - thresholds to override (`DETECTOR_SETTINGS` names); the rest take their defaults.
   * @param guards - what each side watches and whether the judges run (default: everything).
   * @throws SettingError naming the setting, what it allows and the value, for a value the detector refuses.
   */
  constructor(thresholds?: Partial<DetectorConfig>, guards?: Partial<DetectorGuards>) {
    this.config = resolveDetectorConfig(thresholds)
    this.guards = checkGuards(guards)
    const plan = (side: Side) => this.guards[side] === 'off' ? undefined : sidePlan(side, this.config, this.guards[side] === 'verbatim')
    this.reasoning = plan('reasoning')
    this.text = plan('text')
    this.tool = plan('tool')
    Object.freeze(this)
  }

  /** `config` itself when it is a plan already, else a plan of it with every side watched. */
  static of(config: Partial<DetectorConfig> | DetectorPlan | undefined): DetectorPlan {
    if (config instanceof DetectorPlan) return config
    // A detector made with no config (one per call, as the API's simplest use) shares one plan.
    if (config === undefined) return (DEFAULT_PLAN ??= new DetectorPlan())
    return new DetectorPlan(config)
  }
}

let DEFAULT_PLAN: DetectorPlan | undefined
