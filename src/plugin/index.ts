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
import type { Agent } from '@deepseek-ai/dsh-agent'
import { isAgentLoopRequest, markAgentLoopRequest } from '@deepseek-ai/dsh-llm'
import type { GenerateOptions, UserMessage } from '@deepseek-ai/dsh-llm'
import { CompletedCallJudges, StreamDetector } from '../detector/index.ts'
import type { DetectorConfig, Trip } from '../detector/index.ts'
import { resolveConfig } from './config.ts'
import type { Config as LoopBreakerConfig } from './config.ts'
import { Escalation } from './escalation.ts'
import type { Reaction } from './escalation.ts'
import { guardStream } from './guard-stream.ts'
import type { CallDetector, CallEnd, Completion, TripDecision } from './guard-stream.ts'
import type { CompletedCall } from './completed-call.ts'
import {
  chosenLocale, continuationLine, createContinuationNotice, createNotice, cropLine, lengthMarker, localeOfText, reactionLine, resolveLocale,
  resumeLine, trimMarker,
} from './messages.ts'
import type { Finding, Locale } from './messages.ts'
import { JOURNAL_EVENT_TYPE, journalEvent, readJournalRecord } from '../journal.ts'
import { isUserSource } from '../message-source.ts'
import { sayRejectedEdits } from '../checked-schema.ts'
import { sayUnappliedPatches } from '../patch-failures.ts'
import { LOGGER_NAME, exportOwnLogLines, toStderr } from './visible-log.ts'
import { sayHeadlessStops } from './headless-end.ts'
import type { LineWriter } from './visible-log.ts'
import type { JournalRecordKind } from '../journal.ts'
import { StepCrops } from './step-crops.ts'
import type {
  LoopBreakerBreakEventData, LoopBreakerContinueEventData, LoopBreakerCropEventData, LoopBreakerResumeEventData, LoopBreakerStallEventData,
} from './events.ts'

export { Config, ConfigFields } from './config.ts'
export type { EscalateMode, Action } from './escalation.ts'
export type {
  LoopBreakerBreakEventData, LoopBreakerContinueEventData, LoopBreakerCropEventData, LoopBreakerResumeEventData, LoopBreakerStallEventData,
} from './events.ts'
export { noticeText, trimMarker, localeOfText } from './messages.ts'
export type { Locale, Finding, Tone } from './messages.ts'

/** The plugin's Cordis name (its row id in the package's bundle patch is `loop-breaker` too). */
export const name = 'loop-breaker'
/** The services it needs: the agent registry (to steer, cancel and record) and the LLM runtime (to re-enter a cropped request). */
export const inject = ['agents', 'llm']

/** The cancel cause a persisting loop ends its turn with. */
export const CANCEL_CAUSE = Object.freeze({ kind: 'hook', reason: 'repetition-loop' } as const)

/**
 * Non-serializable hooks for tests (as `dsh-llm-retry` takes them): replace how a call's detector is made,
 * and where the visible lines go (stderr otherwise): the log lines, a rejected live edit's line and the line
 * for a patch save dsh could not apply.
 */
export interface LoopBreakerInternals {
  createDetector?: (config: DetectorConfig) => CallDetector
  writeLine?: LineWriter
}

/**
 * What the plugin keeps per agent; replaced whenever a user message enters, so every cap and the step
 * history are per user turn. The cross-call judge is carried over: at rc.8 a call with reasoning and no
 * output ends its turn, so stalled calls only line up across the user's "continue" messages.
 */
interface AgentState {
  turn: number
  step: number
  escalation: Escalation
  /** The completed-call judges: carried over whole, told when the user speaks. */
  judges: CompletedCallJudges
  /** `warn` notices waiting for the next step the agent takes anyway. */
  pending: UserMessage[]
  /** The language of the user's latest message that has letters; carried across user turns. */
  spoken: Locale | undefined
  /** The resume notice queued after a cancel, until a request carrying it goes to the model (then the resume is recorded). */
  resume: { noticeId: string; cancelledTurn: number } | undefined
  /** Calls cut by the output length limit that were continued in this user turn. */
  continuations: number
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
  const createDetector = internals.createDetector ?? ((detector: DetectorConfig) => new StreamDetector(detector))
  const logger = ctx.logger(LOGGER_NAME)
  exportOwnLogLines(ctx, internals.writeLine)
  sayHeadlessStops(ctx, CANCEL_CAUSE, internals.writeLine ?? toStderr)
  sayRejectedEdits(ctx, name, internals.writeLine)
  sayUnappliedPatches(ctx, name, internals.writeLine)
  const states = new WeakMap<object, AgentState>()
  /** Per agent, kept across user turns: a crop holds for the whole session. */
  const crops = new WeakMap<object, StepCrops>()
  /** Requests this plugin built without the cropped steps: they pass the crop listener untouched. */
  const croppedRequests = new WeakSet<object>()
  let disposed = false
  ctx.effect(() => () => {
    disposed = true
  }, 'loop-breaker: stop resuming agents')

  function freshState(previous: AgentState | undefined): AgentState {
    return {
      turn: previous?.turn ?? 0,
      step: previous?.step ?? 0,
      escalation: new Escalation(resolved.escalation),
      judges: previous?.judges ?? new CompletedCallJudges(resolved.detector),
      pending: [],
      spoken: previous?.spoken,
      resume: previous?.resume,
      continuations: 0,
    }
  }

  function localeOf(state: AgentState): Locale {
    return resolveLocale(chosenLocale(ctx), state.spoken)
  }

  /** One durable record (unless `journal` is off) and the user's one log line for it. */
  function record(agent: Agent, kind: JournalRecordKind, decision: string, data: { turn: number; step: number }, line: string): void {
    if (resolved.journal) agent.session.append('hook/result', journalEvent(kind, decision, data))
    logger.info(line)
  }

  function stateOf(agent: object): AgentState {
    let state = states.get(agent)
    if (state === undefined) states.set(agent, (state = freshState(undefined)))
    return state
  }

  function failOpen(agent: Agent | undefined, error: unknown): void {
    logger.warn('failed on agent %s, the call streams on untouched: %s', agent?.id ?? '?', errorText(error))
  }

  ctx.on('agent/pre-step', async (payload, next) => {
    let pending: UserMessage[] = []
    try {
      const { agent, messages, turn, step } = payload
      const previous = states.get(agent)
      pending = previous?.pending.splice(0) ?? []
      const userMessages = messages.filter((message: UserMessage) => isUserSource(message.source))
      const state = previous === undefined || userMessages.length > 0 ? freshState(previous) : previous
      if (userMessages.length > 0) state.judges.userSpoke()
      state.turn = turn
      state.step = step
      for (const message of userMessages) state.spoken = localeOfText(textOf(message)) ?? state.spoken
      states.set(agent, state)
    } catch (error) {
      failOpen(payload?.agent, error)
    }
    const decision = await next()
    if (pending.length === 0 || decision?.kind !== 'enter') return decision
    return { ...decision, messages: [...decision.messages, ...pending] }
  })

  /** The agent's crops, read back from its log the first time (a resumed session rebuilds them there). */
  function cropsOf(agent: Agent): StepCrops {
    let agentCrops = crops.get(agent)
    if (agentCrops !== undefined) return agentCrops
    agentCrops = new StepCrops()
    for (const event of agent.session.events) {
      if (event.type !== JOURNAL_EVENT_TYPE) continue
      const found = readJournalRecord(event.type, event.data)
      if (found?.name === 'loop-breaker/crop' && Array.isArray(found.data.messageIds)) agentCrops.add(found.data.messageIds as string[])
    }
    crops.set(agent, agentCrops)
    return agentCrops
  }

  // The request's messages come from the session log (dsh-agent-loop `buildRequest`), and no rc.8 hook
  // rewrites them: `agent/request` proposes only the call config, and `llm/stream`'s `next()` ignores its
  // arguments. So the outermost listener (prepend) answers a request that needs a crop with a new call,
  // built without the cropped messages and marked as an agent-loop request, through the whole
  // `llm/stream` chain again; that second pass goes through here untouched. Every other listener, the
  // guard below and the grammar checker included, sees only the cropped request, once.
  ctx.on('llm/stream', (options, next) => {
    const crop = resolved.crop
    if (!crop.enabled || croppedRequests.has(options) || !isAgentLoopRequest(options)) return next()
    let agent: Agent | undefined
    let request: GenerateOptions
    try {
      // An agent-loop request names its session; one that does not belongs to no agent this plugin tracks.
      agent = options.sessionId === undefined ? undefined : ctx.agents.get(options.sessionId)
      if (agent === undefined) return next()
      const agentCrops = cropsOf(agent)
      const found = agentCrops.detect(options.messages, crop)
      if (found !== undefined) {
        agentCrops.add(found.messageIds)
        const state = stateOf(agent)
        const event: LoopBreakerCropEventData = { turn: state.turn, step: state.step, ...found }
        record(agent, 'crop', 'crop', event, cropLine(localeOf(state), event, { steps: found.steps, messages: found.messageIds.length }))
      }
      const messages = agentCrops.apply(options.messages)
      if (messages === undefined) return next()
      // The messages are frozen already (the session's own); freezing the new arrays is enough.
      request = markAgentLoopRequest(Object.freeze({ ...options, messages: Object.freeze(messages) }) as GenerateOptions)
      croppedRequests.add(request)
    } catch (error) {
      failOpen(agent, error)
      return next()
    }
    return ctx.llm.stream(request)
  }, { prepend: true })

  ctx.on('llm/stream', (options, next) => {
    if (!isAgentLoopRequest(options)) return next()
    let agent: Agent | undefined
    let state: AgentState
    let detector: CallDetector
    let previousResults: unknown[]
    try {
      agent = options.sessionId === undefined ? undefined : ctx.agents.get(options.sessionId)
      if (agent === undefined) return next()
      state = stateOf(agent)
      detector = createDetector(resolved.detector)
      previousResults = trailingToolResults(options.messages)
      recordResume(agent, state, options)
    } catch (error) {
      failOpen(agent, error)
      return next()
    }
    return guardStream(next(), {
      detector,
      marker: (removedChars) => trimMarker(localeOf(state), removedChars),
      reasoningTailChars: resolved.detector.callJudgeWindowChars,
      ...resolved.maxContinuations > 0 ? { lengthMarker: lengthMarker(localeOf(state)) } : {},
      onTrip: (trip, loopChars) => onTrip(agent, state, trip, loopChars),
      onComplete: (call, end) => onComplete(agent, state, call, end, previousResults),
      onFailure: (error) => failOpen(agent, error),
    })
  })

  function onTrip(agent: Agent, state: AgentState, trip: Trip, loopChars: number): TripDecision {
    const reaction = state.escalation.react()
    const event: LoopBreakerBreakEventData = {
      turn: state.turn,
      step: state.step,
      rule: trip.rule,
      side: trip.side,
      at: trip.at,
      repeatedChars: loopChars,
      level: reaction.level,
      action: reaction.action,
    }
    const finding: Finding = { kind: 'break', rule: trip.rule, side: trip.side, repeatedChars: loopChars }
    record(agent, 'break', reaction.action, event, reactionLine(localeOf(state), finding, event, reaction))
    return { cut: true, trimHistory: resolved.trimHistory, afterCut: () => react(agent, state, finding, reaction) }
  }

  function onComplete(agent: Agent, state: AgentState, call: CompletedCall, end: CallEnd, previousResults: unknown[]): Completion | undefined {
    const verdict = state.judges.observe({ ...call, previousResults })
    if (verdict === undefined) {
      state.escalation.settle()
      return end.kind === 'max-tokens' ? continueAfterLengthLimit(agent, state, call, end) : undefined
    }
    const finding: Extract<Finding, { kind: 'stall' }> = { kind: 'stall', ...verdict }
    const reaction = state.escalation.react()
    const event: LoopBreakerStallEventData = {
      turn: state.turn, step: state.step, judge: finding.judge, reason: finding.reason, level: reaction.level, action: reaction.action,
    }
    record(agent, 'stall', reaction.action, event, reactionLine(localeOf(state), finding, event, reaction))
    return { after: () => react(agent, state, finding, reaction) }
  }

  /**
   * A call the output length limit cut, with no loop found in it (a tripped call was cut by the detector
   * before its finish, and a stalled one gets the judges' reaction instead): continue the turn with the
   * continuation notice, up to the per-turn cap; past it, the finish ends the turn as DSH ends it.
   */
  function continueAfterLengthLimit(agent: Agent, state: AgentState, call: CompletedCall, end: CallEnd): Completion | undefined {
    // Only a running turn can go on; a steer into an idle agent would start a new one.
    if (agent.status !== 'running') return undefined
    const max = resolved.maxContinuations
    const locale = localeOf(state)
    const continued = state.continuations < max
    if (continued) state.continuations++
    const event: LoopBreakerContinueEventData = {
      turn: state.turn, step: state.step, action: continued ? 'continue' : 'end', count: state.continuations, max, ...end.cutToolCall === undefined ? {} : { cutToolCall: end.cutToolCall },
    }
    const line = continuationLine(locale, event, { continued, count: state.continuations, max, cutToolCall: end.cutToolCall?.name })
    record(agent, 'continue', event.action, event, line)
    if (!continued) return undefined
    // A call with whole tool calls goes on by their results; the notice is for text cut mid-way, or for
    // a cut tool call (closed so it fails validation) that must be issued again.
    const hasWholeToolCalls = call.toolCalls.length > (end.cutToolCall === undefined ? 0 : 1)
    const notice = end.cutToolCall !== undefined || !hasWholeToolCalls ? createContinuationNotice(locale, end.cutToolCall?.name) : undefined
    return {
      continueAs: call.toolCalls.length > 0 ? 'tool-calls' : 'stop',
      ...notice === undefined ? {} : { after: () => agent.steer(notice) },
    }
  }

  /** Carry out a reaction once the call that caused it has been delivered to the agent loop. */
  function react(agent: Agent, state: AgentState, finding: Finding, reaction: Reaction): void {
    const locale = localeOf(state)
    switch (reaction.action) {
      case 'warn':
        state.pending.push(createNotice(locale, finding, 'remind', reaction.level))
        return
      case 'remind':
      case 'replan':
        agent.steer(createNotice(locale, finding, reaction.action, reaction.level))
        return
      case 'cancel':
      case 'stop':
        // keepInbox: what the user queued meanwhile must survive the cancel.
        agent.cancel(CANCEL_CAUSE, { keepInbox: true })
        if (reaction.resume) resumeAfterCancel(agent, state, createNotice(locale, finding, 'resume', reaction.level))
        return
    }
  }

  /**
   * Follow up with the resume notice right after the cancel. DSH queues input sent after a cancel behind
   * the cancelled activity and starts its turn once that activity has unwound, without the agent settling
   * idle in between, so whoever waits for the agent (a headless run) waits for the resumed turn too. A
   * message the user queued meanwhile stays first in the queue: its turn runs, then the notice's.
   */
  function resumeAfterCancel(agent: Agent, state: AgentState, notice: UserMessage): void {
    if (disposed) return
    state.resume = { noticeId: notice.id, cancelledTurn: state.turn }
    agent.followup(notice)
  }

  /** Record the resume once a request that carries the resume notice goes to the model. */
  function recordResume(agent: Agent, state: AgentState, options: GenerateOptions): void {
    const resume = state.resume
    if (resume === undefined || !options.messages.some((message) => (message as { id?: string }).id === resume.noticeId)) return
    state.resume = undefined
    const event: LoopBreakerResumeEventData = { turn: state.turn, step: state.step }
    record(agent, 'resume', 'resume', event, resumeLine(localeOf(state), { turn: resume.cancelledTurn }))
  }
}

function textOf(message: UserMessage): string {
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n')
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * The tool-result messages after the request's last assistant message: what the model's previous step
 * got back, for the StepJudge to tell a poll that moves (or says it is still running) from a stuck one.
 * The session replay hands over the same messages, as logged (src/session/session-assembler.ts).
 */
function trailingToolResults(messages: ReadonlyArray<any>): unknown[] {
  const results: unknown[] = []
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]
    if (message?.role === 'assistant') break
    if (message?.content?.[0]?.type === 'tool-result') results.push(message)
  }
  return results.reverse()
}
