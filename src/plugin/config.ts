/**
 * The plugin's configuration schema: what each side watches, whether the step judges run, and the
 * reactions. The detector's thresholds are calibration (`DETECTOR_SETTINGS`, tried with the analyzer's
 * `--set`), not settings of the plugin. Every constraint is checked inside the schema (see
 * ../checked-schema.ts for why), and `resolveConfig` validates through it too, so the two never disagree.
 */
import Schema from '@deepseek-ai/schemastery'
import { checkedSchema, closestName } from '../checked-schema.ts'
import { SETTING_NAMES, isRetiredSetting, type GuardSettingName, type ReactionSettingName } from './setting-names.ts'
import { isMapping } from '../mapping.ts'
import { DETECTOR_SETTINGS, DetectorPlan, SIDE_GUARDS } from '../detector/index.ts'
import { SettingError, failSetting, shownValue } from '../detector/settings.ts'
import type { SideGuard } from '../detector/index.ts'
import type { EscalateMode, EscalationSettings } from './escalation.ts'
import type { CropSettings } from './step-crops.ts'

/** Plugin config: every key is optional and has a default (the README's Config table). */
export interface Config {
  /**
   * What the in-call rules watch in the reasoning (default `'full'`): `'full'` every rule; `'verbatim'`
   * only repetition written again as it was (the near-repetition rule off); `'off'` nothing.
   */
  reasoning?: SideGuard
  /** As `reasoning`, for the visible reply (default `'full'`). */
  text?: SideGuard
  /** As `reasoning`, for tool-call arguments (default `'full'`). */
  tool?: SideGuard
  /** Judge completed calls: reasoning restated across calls, the same step again, steps alternating (default true). */
  steps?: boolean
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
  /**
   * Leave runs of identical completed steps out of later requests, keeping the first (default false): a
   * run as long as the step judge's `maxRepeatedSteps`, at most `CROP_MAX_STEPS` steps of it.
   */
  crop?: boolean
}

export interface ResolvedConfig {
  detector: DetectorPlan
  escalation: EscalationSettings
  trimHistory: boolean
  journal: boolean
  maxContinuations: number
  crop: (CropSettings & { enabled: true }) | { enabled: false }
}

const ESCALATE_MODES: readonly EscalateMode[] = ['warn', 'steer', 'cancel']

// The crop lands with the step judge's notice of the same repeat, so it takes the judge's count.
const CROP_AFTER = DETECTOR_SETTINGS.maxRepeatedSteps.default
// MiMo's loop_streak_recovery max_span: a crop bounded however long the run.
const CROP_MAX_STEPS = 64

function sideGuardField(side: string): Schema<SideGuard> {
  return Schema.union(SIDE_GUARDS.map((guard) => Schema.const(guard))).default('full')
    .description(`What is cut in ${side}: 'full' (verbatim and near-repetition), 'verbatim' (only repetition written again as it was), 'off' (nothing).`)
}

/** What is watched: each field carries its own constraint. */
const GUARD_FIELDS = {
  reasoning: sideGuardField('the reasoning'),
  text: sideGuardField('the visible reply'),
  tool: sideGuardField('tool-call arguments'),
  steps: Schema.boolean().default(true)
    .description('Judge completed calls: reasoning restated across calls with no output, the same step again, steps alternating.'),
} satisfies { [K in GuardSettingName]: Schema }

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
    .description(`Leave runs of ${CROP_AFTER} or more identical completed steps (same calls, arguments and results, or same text) out of every later request, keeping the first (at most ${CROP_MAX_STEPS} steps a crop); the log keeps them.`),
} satisfies { [K in ReactionSettingName]: Schema }

const FIELDS: Record<string, Schema> = { ...GUARD_FIELDS, ...REACTION_FIELDS }

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
 * the value: unknown keys, then each field against its schema field. A setting of an earlier version
 * passes here and is named, with what replaces it, by the plugin's start-up line (`retiredSettingsLine`).
 */
function checkSettings(raw: unknown): void {
  if (raw === undefined || raw === null) return
  if (!isMapping(raw)) failSetting('config', 'a mapping of settings', raw)
  for (const [name, value] of Object.entries(raw)) {
    // An empty value in YAML (`maxFires:`) is null: the setting keeps its default, as schemastery does.
    if (value === undefined || value === null || isRetiredSetting(name)) continue
    const field = Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined
    if (field === undefined) {
      const closest = closestName(name, SETTING_NAMES)
      const hint = closest !== undefined ? `did you mean ${closest}?` : "the README's Config table lists every setting"
      throw new SettingError(`loop-breaker: ${name} is not a setting, ${hint} (got ${name}: ${shownValue(value)})`)
    }
    try {
      Schema.resolve(value, field, {})
    } catch {
      failSetting(name, allowedBy(field), value)
    }
  }
}

/** Every setting as a schema field (default, description, range): what docs and tests list. */
export const ConfigFields = Schema.object({ ...GUARD_FIELDS, ...REACTION_FIELDS })

export const Config: Schema<Config> = checkedSchema<Config>(ConfigFields, checkSettings, SettingError)

/** Validate through the schema and fill defaults; throws the schema's one-line `ValidationError`. */
export function resolveConfig(config: Config = {}): ResolvedConfig {
  const valid = Config(config) as Required<Config>
  return {
    detector: new DetectorPlan(undefined, { reasoning: valid.reasoning, text: valid.text, tool: valid.tool, steps: valid.steps }),
    escalation: {
      escalate: valid.escalate,
      maxBreaksPerTurn: valid.maxBreaksPerTurn,
      maxFires: valid.maxFires,
      resumeAfterBreak: valid.resumeAfterBreak,
    },
    trimHistory: valid.trimHistory,
    journal: valid.journal,
    maxContinuations: valid.maxContinuations,
    crop: valid.crop ? { enabled: true, cropAfter: CROP_AFTER, cropMaxSteps: CROP_MAX_STEPS } : { enabled: false },
  }
}
