/**
 * The names of the plugin's settings, and of the settings of earlier versions with what replaces each.
 * `config.ts` gives each setting its schema field (default, description, range) and the compiler holds
 * both to these names; the analyzer reads them from here, without loading the schema library.
 */
/** What each side watches, and whether the judges of completed calls run. */
export const GUARD_SETTING_NAMES = ['reasoning', 'text', 'tool', 'steps'] as const

/** What the plugin does after a finding. */
export const REACTION_SETTING_NAMES = [
  'escalate', 'maxBreaksPerTurn', 'maxFires', 'resumeAfterBreak', 'trimHistory', 'journal', 'maxContinuations', 'crop',
] as const

export type GuardSettingName = (typeof GUARD_SETTING_NAMES)[number]
export type ReactionSettingName = (typeof REACTION_SETTING_NAMES)[number]

/** Every setting of the plugin. */
export const SETTING_NAMES: readonly string[] = [...GUARD_SETTING_NAMES, ...REACTION_SETTING_NAMES]

/**
 * The settings of the earlier versions (0.1.x), by what replaces them: each detector threshold the guard
 * of the sides it applied to (the thresholds stay the detector's calibration, tried with the analyzer's
 * `--set`), the judges' thresholds `steps`, the crop's count and bound `crop`. Their bundle patch wrote
 * all of them into every install, so a patch may still hold any.
 */
const EARLIER_SETTINGS: Readonly<Record<string, readonly string[]>> = {
  reasoning: ['reasoningCycleMaxPeriod', 'reasoningCycleMinSpan', 'reasoningPoolMinRepeatedChars'],
  text: ['textCycleMaxPeriod', 'textCycleMinSpan', 'textPoolMinRepeatedChars'],
  tool: ['toolCycleMaxPeriod', 'toolCycleMinSpan', 'toolDataMinSpan', 'toolPoolMinRepeatedChars', 'toolPoolWindowChars', 'toolPoolMinConcentration',
    'toolNoveltyMinSpan', 'toolTokenPeriodMinRepeats', 'toolSymbolRunMinChars', 'toolDividerRunMinChars', 'toolMaxIdenticalChunks'],
  'reasoning and text': ['noveltyMinSpan', 'noveltySlottedMinSpan', 'noveltyDataMinSpan', 'noveltyWindowChars', 'noveltyMinCoverage',
    'noveltyMiddleMinCoverage', 'noveltyMiddleMinSpan', 'noveltyWeakMinCoverage', 'noveltyWeakMinSpan', 'noveltyEchoMinSpan', 'noveltyEchoMinShare',
    'noveltyEchoMaxPeriod', 'noveltyEchoMinPeriods', 'noveltyPlainMinShare', 'noveltyDataMinCoverage', 'noveltyDataMinOrder', 'noveltyMinPeriods',
    'noveltyNewMaterialShare', 'noveltyNewMaterialMinPeriod', 'noveltyHistoryTokens'],
  'reasoning, text and tool': ['cycleMinPeriods', 'dataMinSpan', 'codeMinSpan', 'cycleCheckStride', 'poolWindowChars', 'poolWindowUnits',
    'poolMinCoverage', 'poolMinConcentration', 'tokenPeriodMinRepeats', 'tokenPeriodMaxBlock', 'tokenPeriodMinDistinct', 'symbolRunMinChars',
    'dividerRunMinChars', 'maxIdenticalChunks'],
  steps: ['maxThinkingSteps', 'minReasoningChars', 'similarityThreshold', 'callJudgeWindowChars', 'restatementTailChars', 'maxRepeatedSteps',
    'maxAlternatingSteps', 'maxStepCycleLength'],
  crop: ['cropAfter', 'cropMaxSteps'],
}

const REPLACEMENT = new Map(Object.entries(EARLIER_SETTINGS).flatMap(([replacement, names]) => names.map((name) => [name, replacement] as const)))

/** What replaces a setting of an earlier version, or `undefined` for a name that never was a setting. */
export function replacementOf(name: string): string | undefined {
  return REPLACEMENT.get(name)
}

/** Whether `name` is a setting of an earlier version that the plugin no longer takes. */
export function isRetiredSetting(name: string): boolean {
  return replacementOf(name) !== undefined
}

/**
 * One line naming the settings of an earlier version in a config and what replaces each, grouped by
 * replacement; `undefined` when there is none. Such a config is taken with them left out.
 * @param config - a `loop-breaker` row's config as written (before the schema fills defaults).
 */
export function retiredSettingsLine(config: object | undefined | null): string | undefined {
  if (config === undefined || config === null) return undefined
  const byReplacement = new Map<string, string[]>()
  for (const name of Object.keys(config)) {
    const replacement = replacementOf(name)
    if (replacement === undefined) continue
    const names = byReplacement.get(replacement)
    if (names === undefined) byReplacement.set(replacement, [name])
    else names.push(name)
  }
  if (byReplacement.size === 0) return undefined
  const count = [...byReplacement.values()].reduce((sum, names) => sum + names.length, 0)
  const groups = [...byReplacement].map(([replacement, names]) => `${names.join(', ')} → ${replacement}`)
  return `loop-breaker: ${count} setting${count === 1 ? '' : 's'} of an earlier version left out (the detector's thresholds are calibration now, tried with the analyzer's --set): ${groups.join('; ')}; reasoning, text and tool take full, verbatim or off, steps and crop true or false`
}
