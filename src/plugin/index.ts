/**
 * The `loop-breaker` DSH plugin: it watches every agent-loop model call inside the `llm/stream`
 * waterfall, cuts a call whose reasoning, reply or tool arguments fall into a repetition loop (a legal
 * ending, the repeated tail trimmed out of what the model reads next), tells the model in the user's
 * language to carry on differently, and escalates per agent from remind to replan to cancelling the turn.
 * The cross-call and cross-step judges feed the same ladder. Every reaction is a durable session event
 * and one warning line. It never breaks a turn by itself: whatever throws inside it leaves the call
 * streaming untouched. Session-title and compaction calls are not guarded. Semantics and the exact texts
 * the model sees are in the README.
 */
import type { Context } from '@deepseek-ai/cordis'
import { isAgentLoopRequest } from '@deepseek-ai/dsh-llm'
import type { GenerateOptions, StreamChunk, UserMessage } from '@deepseek-ai/dsh-llm'
import { CallJudge, StepJudge, StreamDetector } from '../detector/index.ts'
import type { DetectorConfig, Trip } from '../detector/index.ts'
import { resolveConfig } from './config.ts'
import type { Config as LoopBreakerConfig } from './config.ts'
import { Escalation } from './escalation.ts'
import type { Reaction } from './escalation.ts'
import { guardStream } from './guard-stream.ts'
import type { CallDetector, CompletedCall, TripDecision } from './guard-stream.ts'
import { createNotice, resolveLocale, trimMarker } from './messages.ts'
import type { Finding } from './messages.ts'
import type { LoopBreakerBreakEventData, LoopBreakerStallEventData } from './events.ts'

export { Config } from './config.ts'
export type { EscalateMode, Action } from './escalation.ts'
export type { LoopBreakerBreakEventData, LoopBreakerStallEventData } from './events.ts'
export { noticeText, trimMarker } from './messages.ts'
export type { Locale, Finding, Tone } from './messages.ts'

export const name = 'loop-breaker'
export const inject = ['agents']

/** The cancel cause a persisting loop ends its turn with. */
export const CANCEL_CAUSE = Object.freeze({ kind: 'hook', reason: 'repetition-loop' } as const)

/** Non-serializable hooks for tests (as `dsh-llm-retry` takes them): replace how a call's detector is made. */
export interface LoopBreakerInternals {
  createDetector?: (config: DetectorConfig) => CallDetector
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
  callJudge: CallJudge
  stepJudge: StepJudge
  /** `warn` notices waiting for the next step the agent takes anyway. */
  pending: UserMessage[]
}

export function apply(ctx: Context, config: LoopBreakerConfig = {}, internals: LoopBreakerInternals = {}): void {
  const resolved = resolveConfig(config)
  const createDetector = internals.createDetector ?? ((detector: DetectorConfig) => new StreamDetector(detector))
  const logger = (ctx as any).logger('loop-breaker')
  const states = new WeakMap<object, AgentState>()
  let disposed = false
  ;(ctx as any).effect(() => () => {
    disposed = true
  }, 'loop-breaker: stop resuming agents')

  function freshState(previous: AgentState | undefined): AgentState {
    return {
      turn: previous?.turn ?? 0,
      step: previous?.step ?? 0,
      escalation: new Escalation(resolved.escalation),
      callJudge: previous?.callJudge ?? new CallJudge(resolved.detector),
      stepJudge: new StepJudge(resolved.detector),
      pending: [],
    }
  }

  function stateOf(agent: object): AgentState {
    let state = states.get(agent)
    if (state === undefined) states.set(agent, (state = freshState(undefined)))
    return state
  }

  function failOpen(agent: any, error: unknown): void {
    logger.warn('failed on agent %s, the call streams on untouched: %s', agent?.id ?? '?', errorText(error))
  }

  ctx.on('agent/pre-step' as any, async (payload: any, next: () => Promise<any>) => {
    let pending: UserMessage[] = []
    try {
      const { agent, messages, turn, step } = payload
      const previous = states.get(agent)
      pending = previous?.pending.splice(0) ?? []
      // A message with no source at all was built by hand for the user (the CLI stamps `kind: 'user'`);
      // notices, tool context and runtime context always carry their own source.
      const userSpoke = messages.some((message: UserMessage) => {
        const source = message.source as { kind?: string } | undefined
        return source === undefined || source.kind === 'user'
      })
      const state = previous === undefined || userSpoke ? freshState(previous) : previous
      state.turn = turn
      state.step = step
      states.set(agent, state)
    } catch (error) {
      failOpen(payload?.agent, error)
    }
    const decision = await next()
    if (pending.length === 0 || decision?.kind !== 'enter') return decision
    return { ...decision, messages: [...decision.messages, ...pending] }
  })

  ctx.on('llm/stream' as any, (options: GenerateOptions, next: () => AsyncIterable<StreamChunk>) => {
    if (!isAgentLoopRequest(options)) return next()
    let agent: any
    let state: AgentState
    let detector: CallDetector
    let previousResults: unknown[]
    try {
      agent = (ctx as any).agents.get(options.sessionId)
      if (agent === undefined) return next()
      state = stateOf(agent)
      detector = createDetector(resolved.detector)
      previousResults = trailingToolResults(options.messages)
    } catch (error) {
      failOpen(agent, error)
      return next()
    }
    return guardStream(next(), {
      detector,
      marker: (removedChars) => trimMarker(resolveLocale(ctx as any), removedChars),
      reasoningTailChars: resolved.detector.callJudgeWindowChars,
      onTrip: (trip) => onTrip(agent, state, trip),
      onComplete: (call) => onComplete(agent, state, call, previousResults),
      onFailure: (error) => failOpen(agent, error),
    })
  })

  function onTrip(agent: any, state: AgentState, trip: Trip): TripDecision {
    const reaction = state.escalation.react()
    const event: LoopBreakerBreakEventData = {
      turn: state.turn,
      step: state.step,
      rule: trip.rule,
      side: trip.side,
      at: trip.at,
      repeatedChars: trip.repeatedChars,
      level: reaction.level,
      action: reaction.action,
    }
    if (resolved.journal) agent.session.append('loop-breaker/break', event)
    logger.warn(
      'agent %s turn %d step %d: %s loop in %s at %d (%d repeated chars), level %d → %s',
      agent.id, event.turn, event.step, event.rule, event.side, event.at, event.repeatedChars, event.level, event.action,
    )
    if (reaction.action === 'observe') return { cut: false }
    const finding: Finding = { kind: 'break', rule: trip.rule, side: trip.side, repeatedChars: trip.repeatedChars }
    return { cut: true, trimHistory: resolved.trimHistory, afterCut: () => react(agent, state, finding, reaction) }
  }

  function onComplete(agent: any, state: AgentState, call: CompletedCall, previousResults: unknown[]): (() => void) | undefined {
    const hasOutput = call.text.trim() !== '' || call.toolCalls.length > 0
    const stall = state.callJudge.observe({ reasoning: call.reasoning, reasoningLength: call.reasoningLength, hasOutput })
    const repeat = state.stepJudge.observe({ text: call.text, toolCalls: call.toolCalls, previousResults })
    const finding: Extract<Finding, { kind: 'stall' }> | undefined = stall !== undefined
      ? { kind: 'stall', judge: 'call', reason: stall }
      : repeat !== undefined ? { kind: 'stall', judge: 'step', reason: repeat } : undefined
    if (finding === undefined) {
      state.escalation.settle()
      return undefined
    }
    const reaction = state.escalation.react()
    const event: LoopBreakerStallEventData = {
      turn: state.turn, step: state.step, judge: finding.judge, reason: finding.reason, level: reaction.level, action: reaction.action,
    }
    if (resolved.journal) agent.session.append('loop-breaker/stall', event)
    logger.warn(
      'agent %s turn %d step %d: %s judge reports %s, level %d → %s',
      agent.id, event.turn, event.step, event.judge, event.reason, event.level, event.action,
    )
    if (reaction.action === 'observe') return undefined
    return () => react(agent, state, finding, reaction)
  }

  /** Carry out a reaction once the call that caused it has been delivered to the agent loop. */
  function react(agent: any, state: AgentState, finding: Finding, reaction: Reaction): void {
    const locale = resolveLocale(ctx as any)
    switch (reaction.action) {
      case 'warn':
        state.pending.push(createNotice(locale, finding, 'remind', reaction.level))
        return
      case 'remind':
      case 'replan':
        agent.steer(createNotice(locale, finding, reaction.action, reaction.level))
        return
      case 'cancel':
        // keepInbox: what the user queued meanwhile must survive the cancel.
        agent.cancel(CANCEL_CAUSE, { keepInbox: true })
        if (reaction.resume) resumeWhenIdle(agent, state, createNotice(locale, finding, 'resume', reaction.level))
        return
      case 'observe':
        return
    }
  }

  /** Follow up with the notice once the cancelled turn has unwound, unless the user has spoken since. */
  function resumeWhenIdle(agent: any, state: AgentState, notice: UserMessage): void {
    agent.whenIdle().then(() => {
      if (disposed || states.get(agent) !== state || agent.status !== 'idle') return
      agent.followup(notice)
    }).catch((error: unknown) => failOpen(agent, error))
  }
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
