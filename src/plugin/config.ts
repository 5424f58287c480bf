/**
 * The plugin's configuration: every detector threshold (built by iterating the detector's
 * `DETECTOR_SETTINGS`, so defaults and descriptions have one source) plus the reaction settings, and the
 * load-time validation that fails loud with the field and the value.
 */
import Schema from '@deepseek-ai/schemastery'
import { DETECTOR_SETTINGS, resolveDetectorConfig } from '../detector/index.ts'
import { failSetting } from '../detector/settings.ts'
import type { DetectorConfig, DetectorSettingName } from '../detector/index.ts'
import type { EscalateMode, EscalationSettings } from './escalation.ts'
import type { CropSettings } from './step-crops.ts'

/**
 * Plugin config. The detector thresholds (`reasoningCycleMinSpan`, `poolMinCoverage`, ...) are documented
 * with their defaults in the detector's `DETECTOR_SETTINGS` table and in the README's Config table; the
 * reaction settings are below.
 */
export interface Config extends Partial<DetectorConfig> {
  /**
   * The strongest reaction (default `'cancel'`): `'warn'` cuts and leaves the notice for the next request
   * the agent makes anyway; `'steer'` also makes the model continue in the same turn; `'cancel'` also
   * cancels the turn when the loop persists.
   */
  escalate?: EscalateMode
  /** Consecutive findings in one user turn at which the turn is cancelled (default 3: remind, replan, cancel). */
  maxBreaksPerTurn?: number
  /** Reactions per user turn (default 6); the last one cancels without resuming, later findings are only recorded. */
  maxFires?: number
  /** After a cancel, wait until the agent is idle and follow up with the notice (default false). */
  resumeAfterBreak?: boolean
  /** Replace the repeated tail of a cut block with a short marker in what the model reads next (default true). */
  trimHistory?: boolean
  /**
   * Record every reaction as a durable `loop-breaker/*` session event (default true). DSH rc.8's persistence
   * refuses to resume a session holding an event type it does not know, so turn this off where sessions
   * are resumed; the notices themselves are ordinary user messages and stay in the log either way.
   */
  journal?: boolean
  /**
   * Continue the turn after a call the output length limit cut (`max-tokens`) that is not a loop, at most
   * this many times per user turn (default 3; 0 lets every such call end its turn, as DSH does).
   */
  maxContinuations?: number
  /** Leave runs of identical completed steps out of later requests, keeping the first (default false). */
  crop?: boolean
  /** Identical completed steps in a row that are cropped, the first one kept (default 3). */
  cropAfter?: number
  /** At most this many steps left out by one crop, the most recent ones of the run (default 64). */
  cropMaxSteps?: number
}

export interface ResolvedConfig {
  detector: DetectorConfig
  escalation: EscalationSettings
  trimHistory: boolean
  journal: boolean
  maxContinuations: number
  crop: (CropSettings & { enabled: true }) | { enabled: false }
}

const REACTION_DEFAULTS = {
  escalate: 'cancel',
  maxBreaksPerTurn: 3,
  maxFires: 6,
  resumeAfterBreak: false,
  trimHistory: true,
  journal: true,
  // MiMo's autoContinueOutputLength allows 3: enough for an answer about four times the output limit.
  maxContinuations: 3,
  // Off: a cropped request is legal and its prefix stable, but it no longer equals the log's derivation,
  // which DSH's agent-loop invariant requires of every request; see docs/continuation-and-crop.md#default.
  crop: false,
  // The StepJudge's repeated-step threshold: the crop lands together with its notice.
  cropAfter: 3,
  // MiMo's loop_streak_recovery max_span.
  cropMaxSteps: 64,
} as const satisfies EscalationSettings & { trimHistory: boolean; journal: boolean; maxContinuations: number; crop: boolean } & CropSettings

const ESCALATE_MODES: readonly EscalateMode[] = ['warn', 'steer', 'cancel']

const detectorSchema = Object.fromEntries(
  (Object.keys(DETECTOR_SETTINGS) as DetectorSettingName[]).map((name) => {
    const setting = DETECTOR_SETTINGS[name]
    return [name, Schema.number().default(setting.default).description(setting.description)]
  }),
) as { [K in DetectorSettingName]: Schema<number> }

export const Config: Schema<Config> = Schema.object({
  ...detectorSchema,
  escalate: Schema.union(ESCALATE_MODES.map((mode) => Schema.const(mode)))
    .default(REACTION_DEFAULTS.escalate)
    .description("Strongest reaction: 'warn' (cut, notice with the next request), 'steer' (also continue the turn), 'cancel' (also cancel a persisting loop)."),
  maxBreaksPerTurn: Schema.number().default(REACTION_DEFAULTS.maxBreaksPerTurn)
    .description('Consecutive findings in one user turn at which the turn is cancelled: the first reminds, the ones between re-plan, this one cancels.'),
  maxFires: Schema.number().default(REACTION_DEFAULTS.maxFires)
    .description('Reactions per user turn; the last one cancels without resuming, later findings are only recorded.'),
  resumeAfterBreak: Schema.boolean().default(REACTION_DEFAULTS.resumeAfterBreak)
    .description('After cancelling a turn, wait until the agent is idle and follow up with the notice.'),
  trimHistory: Schema.boolean().default(REACTION_DEFAULTS.trimHistory)
    .description('Replace the repeated tail of a cut block with a short marker in what the model reads next (the raw chunks stay in the log).'),
  journal: Schema.boolean().default(REACTION_DEFAULTS.journal)
    .description('Record every reaction as a durable loop-breaker/* session event (DSH rc.8 cannot resume a session holding them).'),
  maxContinuations: Schema.number().default(REACTION_DEFAULTS.maxContinuations)
    .description('Continuations per user turn after a call the output length limit cut (not a loop); 0 lets such a call end the turn as DSH does.'),
  crop: Schema.boolean().default(REACTION_DEFAULTS.crop)
    .description('Leave runs of identical completed steps (same calls, arguments and results, or same text) out of every later request, keeping the first; the log keeps them.'),
  cropAfter: Schema.number().default(REACTION_DEFAULTS.cropAfter)
    .description('Identical completed steps in a row that are cropped, the first one kept (at least 2).'),
  cropMaxSteps: Schema.number().default(REACTION_DEFAULTS.cropMaxSteps)
    .description('At most this many steps left out by one crop: the most recent ones of the run.'),
}) as Schema<Config>

function positiveInteger(field: string, value: unknown): number {
  return integerAtLeast(field, value, 1)
}

function integerAtLeast(field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) failSetting(field, `an integer >= ${min}`, value)
  return value
}

function flag(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') failSetting(field, 'true or false', value)
  return value
}

/** Fill defaults and validate; throws `loop-breaker: <field> must be ... (got <value>)`. */
export function resolveConfig(config: Config = {}): ResolvedConfig {
  const detectorPart: Record<string, unknown> = {}
  const reactionPart: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(config)) {
    if (value === undefined) continue
    if (Object.hasOwn(DETECTOR_SETTINGS, field)) detectorPart[field] = value
    else if (Object.hasOwn(REACTION_DEFAULTS, field)) reactionPart[field] = value
    else failSetting(field, `a known setting (a detector threshold or ${Object.keys(REACTION_DEFAULTS).join(', ')})`, field)
  }
  const reaction = { ...REACTION_DEFAULTS, ...reactionPart }
  if (!ESCALATE_MODES.includes(reaction.escalate as EscalateMode)) failSetting('escalate', "'warn', 'steer' or 'cancel'", reaction.escalate)
  return {
    detector: resolveDetectorConfig(detectorPart as Partial<DetectorConfig>),
    escalation: {
      escalate: reaction.escalate as EscalateMode,
      maxBreaksPerTurn: positiveInteger('maxBreaksPerTurn', reaction.maxBreaksPerTurn),
      maxFires: positiveInteger('maxFires', reaction.maxFires),
      resumeAfterBreak: flag('resumeAfterBreak', reaction.resumeAfterBreak),
    },
    trimHistory: flag('trimHistory', reaction.trimHistory),
    journal: flag('journal', reaction.journal),
    maxContinuations: integerAtLeast('maxContinuations', reaction.maxContinuations, 0),
    crop: flag('crop', reaction.crop)
      ? { enabled: true, cropAfter: integerAtLeast('cropAfter', reaction.cropAfter, 2), cropMaxSteps: positiveInteger('cropMaxSteps', reaction.cropMaxSteps) }
      : { enabled: false },
  }
}
