/**
 * The `loop-breaker` DSH plugin: it watches every agent-loop model call inside the `llm/stream`
 * waterfall, cuts a call whose reasoning, reply or tool arguments fall into a repetition loop (a legal
 * ending, the repeated tail trimmed out of what the model reads next), tells the model in the user's
 * language to carry on differently, and escalates per agent from remind to replan to cancelling the turn.
 * The cross-call and cross-step judges feed the same ladder. A call cut by the output length limit that is
 * not a loop is continued, and (opt-in) repeated steps are cropped from later requests (see
 * docs/continuation-and-crop.md). Every reaction is a durable session event and one log line the user
 * sees on stderr (visible-log.ts). It never breaks a turn by itself: whatever throws inside it leaves the call
 * streaming untouched. Session-title and compaction calls are not guarded. Semantics and the exact texts
 * the model sees are in the README.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import { StreamDetector } from '../detector/index.ts'
import type { DetectorPlan } from '../detector/index.ts'
import { sayRejectedEdits } from '../checked-schema.ts'
import { sayUnappliedPatches } from '../patch-failures.ts'
import { AgentStates } from './agent-state.ts'
import { resolveConfig } from './config.ts'
import { retiredSettingsLine } from './setting-names.ts'
import type { Config as LoopBreakerConfig } from './config.ts'
import { Continuation } from './continuation.ts'
import { CropReentry } from './crop-reentry.ts'
import type { CallDetector } from './guard-stream.ts'
import { GuardWiring } from './guard-wiring.ts'
import { sayHeadlessStops } from './headless-end.ts'
import { CANCEL_CAUSE, Reactions } from './reactions.ts'
import { Recorder } from './recorder.ts'
import { Resume } from './resume.ts'
import { LOGGER_NAME, exportOwnLogLines, toStderr } from './visible-log.ts'
import type { LineWriter } from './visible-log.ts'

export { Config, ConfigFields } from './config.ts'
export type { EscalateMode, Action } from './escalation.ts'
export type {
  LoopBreakerBreakEventData, LoopBreakerContinueEventData, LoopBreakerCropEventData, LoopBreakerResumeEventData, LoopBreakerStallEventData,
} from './events.ts'
export { noticeText, trimMarker, localeOfText } from './messages.ts'
export { CANCEL_CAUSE } from './reactions.ts'
export type { Locale, Finding, Tone } from './messages.ts'

/** The plugin's Cordis name (its row id in the package's bundle patch is `loop-breaker` too). */
export const name = 'loop-breaker'
/** The services it needs: the agent registry (to steer, cancel and record) and the LLM runtime (to re-enter a cropped request). */
export const inject = ['agents', 'llm']

/**
 * Non-serializable hooks for tests (as `dsh-llm-retry` takes them): replace how a call's detector is made,
 * and where the visible lines go (stderr otherwise): the log lines, a rejected live edit's line and the line
 * for a patch save dsh could not apply.
 */
export interface LoopBreakerInternals {
  createDetector?: (plan: DetectorPlan) => CallDetector
  writeLine?: LineWriter
}

/**
 * Mount the loop-breaker on a DSH context: the `llm/stream` guard, the escalation per agent, the durable
 * records and the visible log line.
 * @param ctx - the plugin's Cordis context (with the `agents` and `llm` services).
 * @param config - the `loop-breaker` row's config; every field left out takes its default.
 * @param internals - test hooks (a replacement detector, where log lines go); never set by DSH.
 * @throws the schema's one-line error on a config it refuses (Cordis validates it first on load and on a
 *   live edit, so a running plugin keeps its previous config).
 */
export function apply(ctx: Context, config: LoopBreakerConfig = {}, internals: LoopBreakerInternals = {}): void {
  const resolved = resolveConfig(config)
  const createDetector = internals.createDetector ?? ((plan: DetectorPlan) => new StreamDetector(plan))
  const logger = ctx.logger(LOGGER_NAME)
  const recorder = new Recorder(logger, resolved.journal)
  exportOwnLogLines(ctx, internals.writeLine)
  const retired = retiredSettingsLine(config)
  if (retired !== undefined) logger.info(retired)
  sayHeadlessStops(ctx, CANCEL_CAUSE, internals.writeLine ?? toStderr)
  sayRejectedEdits(ctx, name, internals.writeLine)
  sayUnappliedPatches(ctx, name, internals.writeLine)
  const states = new AgentStates(ctx, resolved)
  const resume = new Resume(states, recorder)
  ctx.effect(() => () => resume.stop(), 'loop-breaker: stop resuming agents')
  const crops = new CropReentry(ctx, resolved.crop, states, recorder)
  const guard = new GuardWiring(ctx, {
    detector: resolved.detector,
    createDetector,
    maxContinuations: resolved.maxContinuations,
    states,
    recorder,
    reactions: new Reactions(states, recorder, resume, resolved.trimHistory),
    continuation: new Continuation(states, recorder, resolved.maxContinuations),
    resume,
  })

  ctx.on('agent/pre-step', async (payload, next) => {
    let pending: UserMessage[] = []
    try {
      pending = states.takePending(payload.agent)
      states.enterStep(payload.agent, payload.messages, payload.turn, payload.step)
    } catch (error) {
      recorder.failOpen(payload.agent, error)
    }
    const decision = await next()
    if (pending.length === 0 || decision?.kind !== 'enter') return decision
    return { ...decision, messages: [...decision.messages, ...pending] }
  })
  ctx.on('llm/stream', (options, next) => crops.stream(options, next), { prepend: true })
  ctx.on('llm/stream', (options, next) => guard.stream(options, next))
}
