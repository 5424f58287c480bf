/**
 * The plugin's configuration schema: every detector threshold (built by iterating the detector's
 * `DETECTOR_SETTINGS`, so defaults, descriptions and ranges have one source) plus the reaction settings.
 * Every constraint is checked inside the schema (see ../checked-schema.ts for why), and `resolveConfig`
 * validates through it too, so the two never disagree.
 */
import Schema from '@deepseek-ai/schemastery'
import { checkedSchema, closestName } from '../checked-schema.ts'
import type { ReactionSettingName } from './setting-names.ts'
import { isMapping } from '../mapping.ts'
import { DETECTOR_SETTINGS, resolveDetectorConfig } from '../detector/index.ts'
import { SettingError, failSetting, shownValue } from '../detector/settings.ts'
import type { DetectorConfig, DetectorSetting, DetectorSettingName } from '../detector/index.ts'
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
  /**
   * Reactions per user turn (default 6). Past them a finding is still cut, without a notice, and its turn
   * is cancelled, never resumed, whatever `escalate` says; with `'cancel'` the last reaction already
   * cancels without resuming. So a user turn holds at most `maxFires` reactions plus that final stop.
   */
  maxFires?: number
  /**
   * With `escalate: 'cancel'` only: after a cancel that is not the last reaction, follow up with the
   * resume notice in a new turn (default false). `'warn'` and `'steer'` never cancel but for the final stop,
   * which never resumes.
   */
  resumeAfterBreak?: boolean
  /** Replace the repeated tail of a cut block with a short marker in what the model reads next (default true). */
  trimHistory?: boolean
  /**
   * Record every reaction as a durable `hook/result` session event (default true), in the one form DSH
   * rc.8 loads, resumes and forks (see `../journal.ts`); the analyzer compares its replay with them. The
   * notices themselves are ordinary user messages and stay in the log either way.
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

const ESCALATE_MODES: readonly EscalateMode[] = ['warn', 'steer', 'cancel']

/** A detector threshold as a schema field: default, description and range straight from its table row. */
function detectorField(setting: DetectorSetting): Schema<number> {
  let field = Schema.number().min(setting.min)
  if (setting.max !== undefined) field = field.max(setting.max)
  if (setting.integer) field = field.step(1)
  return field.default(setting.default).description(setting.description)
}

const DETECTOR_FIELDS = Object.fromEntries(
  (Object.keys(DETECTOR_SETTINGS) as DetectorSettingName[]).map((name) => [name, detectorField(DETECTOR_SETTINGS[name])]),
) as { [K in DetectorSettingName]: Schema<number> }

/** The reaction settings: each field carries its own constraint (enum, positive integer, boolean). */
const REACTION_FIELDS = {
  escalate: Schema.union(ESCALATE_MODES.map((mode) => Schema.const(mode)))
    .default('cancel')
    .description("Strongest reaction: 'warn' (cut, notice with the next request), 'steer' (also continue the turn), 'cancel' (also cancel a persisting loop)."),
  maxBreaksPerTurn: Schema.natural().min(1).default(3)
    .description('Consecutive findings in one user turn at which the turn is cancelled: the first reminds, the ones between re-plan, this one cancels.'),
  maxFires: Schema.natural().min(1).default(6)
    .description("Reactions per user turn, in every mode; past them a finding is still cut, without a notice, and ends the turn (cancelled, never resumed). With 'cancel' the last reaction already cancels without resuming."),
  resumeAfterBreak: Schema.boolean().default(false)
    .description("With escalate 'cancel' only: after a cancel before the last reaction, follow up with the notice in a new turn; the final stop never resumes."),
  trimHistory: Schema.boolean().default(true)
    .description('Replace the repeated tail of a cut block with a short marker in what the model reads next (the raw chunks stay in the log).'),
  journal: Schema.boolean().default(true)
    .description('Record every reaction as a durable hook/result session event (DSH loads, resumes and forks such sessions).'),
  // MiMo's autoContinueOutputLength allows 3: enough for an answer about four times the output limit.
  maxContinuations: Schema.natural().default(3)
    .description('Continuations per user turn after a call the output length limit cut (not a loop); 0 lets such a call end the turn as DSH does.'),
  // Off: a cropped request is legal and its prefix stable, but it no longer equals the log's derivation,
  // which DSH's agent-loop invariant requires of every request; see docs/continuation-and-crop.md#default.
  crop: Schema.boolean().default(false)
    .description('Leave runs of identical completed steps (same calls, arguments and results, or same text) out of every later request, keeping the first; the log keeps them.'),
  // The StepJudge's repeated-step threshold: the crop lands together with its notice.
  cropAfter: Schema.natural().min(2).default(3)
    .description('Identical completed steps in a row that are cropped, the first one kept (at least 2).'),
  // MiMo's loop_streak_recovery max_span.
  cropMaxSteps: Schema.natural().min(1).default(64)
    .description('At most this many steps left out by one crop: the most recent ones of the run.'),
} satisfies { [K in ReactionSettingName]: Schema }
const SETTING_NAMES: readonly string[] = [...Object.keys(DETECTOR_FIELDS), ...Object.keys(REACTION_FIELDS)]

/** What a reaction field allows, in words, read from the field's own schema (so the two cannot disagree). */
function allowedBy(field: Schema): string {
  if (field.type === 'boolean') return 'true or false'
  if (field.type === 'union') {
    const modes = field.list!.map((mode) => `'${String(mode.value)}'`)
    return `${modes.slice(0, -1).join(', ')} or ${modes.at(-1)}`
  }
  const { min, max, step } = field.meta
  const kind = step === 1 ? 'an integer' : 'a number'
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`
  if (min !== undefined) return `${kind} >= ${min}`
  return max !== undefined ? `${kind} <= ${max}` : kind
}

/**
 * Every check on a raw config, each failure one `SettingError` line naming the setting, what it allows and
 * the value: unknown keys, each reaction field against its schema field, then the detector thresholds
 * (ranges from the table, and the combinations under which a rule could never trip).
 */
function checkSettings(raw: unknown): void {
  if (raw === undefined || raw === null) return
  if (!isMapping(raw)) failSetting('config', 'a mapping of settings', raw)
  const detectorPart: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(raw)) {
    // An empty value in YAML (`maxFires:`) is null: the setting keeps its default, as schemastery does.
    if (value === undefined || value === null) continue
    if (Object.hasOwn(DETECTOR_FIELDS, name)) {
      detectorPart[name] = value
    } else if (Object.hasOwn(REACTION_FIELDS, name)) {
      const field: Schema = REACTION_FIELDS[name as ReactionSettingName]
      try {
        Schema.resolve(value, field, {})
      } catch {
        failSetting(name, allowedBy(field), value)
      }
    } else {
      const closest = closestName(name, SETTING_NAMES)
      const hint = closest !== undefined ? `did you mean ${closest}?` : "the package's cordis.patch.yml lists every setting"
      throw new SettingError(`loop-breaker: ${name} is not a setting, ${hint} (got ${name}: ${shownValue(value)})`)
    }
  }
  resolveDetectorConfig(detectorPart as Partial<DetectorConfig>)
}

/** Every setting as a schema field (default, description, range): what docs and tests list. */
export const ConfigFields = Schema.object({ ...DETECTOR_FIELDS, ...REACTION_FIELDS })

export const Config: Schema<Config> = checkedSchema<Config>(ConfigFields, checkSettings, SettingError)

/** Validate through the schema and fill defaults; throws the schema's one-line `ValidationError`. */
export function resolveConfig(config: Config = {}): ResolvedConfig {
  const valid = Config(config) as Required<Config>
  const detector = Object.fromEntries(Object.keys(DETECTOR_FIELDS).map((name) => [name, valid[name as DetectorSettingName]]))
  return {
    detector: resolveDetectorConfig(detector as DetectorConfig),
    escalation: {
      escalate: valid.escalate,
      maxBreaksPerTurn: valid.maxBreaksPerTurn,
      maxFires: valid.maxFires,
      resumeAfterBreak: valid.resumeAfterBreak,
    },
    trimHistory: valid.trimHistory,
    journal: valid.journal,
    maxContinuations: valid.maxContinuations,
    crop: valid.crop ? { enabled: true, cropAfter: valid.cropAfter, cropMaxSteps: valid.cropMaxSteps } : { enabled: false },
  }
}
