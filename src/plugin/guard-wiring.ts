/**
 * The `llm/stream` listener that guards every agent-loop call: it finds the call's agent, gives the call a
 * detector of its own, and wraps the stream (guard-stream.ts) with hooks bound to that agent. A trip goes
 * to the reactions; a call that ended by itself goes to the agent's completed-call judges, whose verdict
 * is a reaction too, and a clean `max-tokens` finish goes to the continuation. Calls that are not the
 * agent loop's (session titles, compaction) pass untouched.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { isAgentLoopRequest } from '@deepseek-ai/dsh-llm'
import type { GenerateOptions, Message, StreamChunk } from '@deepseek-ai/dsh-llm'
import type { DetectorPlan } from '../detector/index.ts'
import type { AgentState, AgentStates } from './agent-state.ts'
import type { CompletedCall } from './completed-call.ts'
import type { Continuation } from './continuation.ts'
import { guardStream } from './guard-stream.ts'
import type { CallDetector, CallEnd, Completion } from './guard-stream.ts'
import { lengthMarker, trimMarker } from './messages.ts'
import type { Reactions } from './reactions.ts'
import type { Recorder } from './recorder.ts'
import type { Resume } from './resume.ts'

/** What the guard works with: the plugin's settings and units, shared by every call. */
export interface GuardParts {
  detector: DetectorPlan
  createDetector: (plan: DetectorPlan) => CallDetector
  /** `maxContinuations`: above 0, a tool call the length limit cut can be closed with the length marker. */
  maxContinuations: number
  states: AgentStates
  recorder: Recorder
  reactions: Reactions
  continuation: Continuation
  resume: Resume
}

export class GuardWiring {
  constructor(private readonly ctx: Context, private readonly parts: GuardParts) {}

  /** The `llm/stream` listener: an agent-loop call's stream, guarded. */
  stream(options: GenerateOptions, next: () => AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> {
    if (!isAgentLoopRequest(options)) return next()
    const { states, recorder, reactions } = this.parts
    let agent: Agent | undefined
    let state: AgentState
    let detector: CallDetector
    let previousResults: unknown[]
    try {
      agent = options.sessionId === undefined ? undefined : this.ctx.agents.get(options.sessionId)
      if (agent === undefined) return next()
      state = states.of(agent)
      detector = this.parts.createDetector(this.parts.detector)
      previousResults = trailingToolResults(options.messages)
      this.parts.resume.recordIfSent(agent, state, options)
    } catch (error) {
      recorder.failOpen(agent, error)
      return next()
    }
    return guardStream(next(), {
      detector,
      marker: (removedChars) => trimMarker(states.locale(state), removedChars),
      reasoningTailChars: this.parts.detector.config.callJudgeWindowChars,
      ...this.parts.maxContinuations > 0 ? { lengthMarker: lengthMarker(states.locale(state)) } : {},
      onTrip: (trip, loopChars) => reactions.toTrip(agent, state, trip, loopChars),
      onComplete: (call, end) => this.onComplete(agent, state, call, end, previousResults),
      onFailure: (error) => recorder.failOpen(agent, error),
    })
  }

  /** A call that ended by itself: the judges' verdict is a reaction; a clean length-limit finish may continue. */
  private onComplete(agent: Agent, state: AgentState, call: CompletedCall, end: CallEnd, previousResults: unknown[]): Completion | undefined {
    const verdict = state.judges.observe({ ...call, previousResults })
    if (verdict === undefined) {
      state.escalation.settle()
      return end.kind === 'max-tokens' ? this.parts.continuation.afterLengthLimit(agent, state, call, end) : undefined
    }
    return this.parts.reactions.toStall(agent, state, verdict)
  }
}

/**
 * The tool-result messages after the request's last assistant message: what the model's previous step
 * got back, for the StepJudge to tell a poll that moves (or says it is still running) from a stuck one.
 * The session replay hands over the same messages, as logged (src/session/session-assembler.ts).
 */
function trailingToolResults(messages: readonly Message[]): unknown[] {
  const results: unknown[] = []
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]
    if (message.role === 'assistant') break
    if (message.content[0]?.type === 'tool-result') results.push(message)
  }
  return results.reverse()
}
