/**
 * The names of the plugin's reaction settings: every setting that is not a detector threshold (those are
 * `DETECTOR_SETTINGS` of the detector). `config.ts` gives each its schema field (default, description,
 * range) and the compiler holds both to these names; the analyzer reads them from here, without loading
 * the schema library.
 */
export const REACTION_SETTING_NAMES = [
  'escalate', 'maxBreaksPerTurn', 'maxFires', 'resumeAfterBreak', 'trimHistory', 'journal', 'maxContinuations', 'crop', 'cropAfter',
  'cropMaxSteps',
] as const

export type ReactionSettingName = (typeof REACTION_SETTING_NAMES)[number]
