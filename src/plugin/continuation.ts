/**
 * Going on after the output length limit: a call that finished with `max-tokens` and was no loop (a
 * tripped call was cut before its finish, a stalled one gets the judges' reaction instead) continues its
 * turn, up to `maxContinuations` per user turn; past the cap, the finish ends the turn as DSH ends it.
 * See docs/continuation-and-crop.md.
 */
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { AgentState, AgentStates } from './agent-state.ts'
import type { CompletedCall } from './completed-call.ts'
import type { LoopBreakerContinueEventData } from './events.ts'
import type { CallEnd, Completion } from './guard-stream.ts'
import { continuationLine, createContinuationNotice } from './messages.ts'
import type { Recorder } from './recorder.ts'

export class Continuation {
  /** @param max - continuations per user turn (`maxContinuations`). */
  constructor(private readonly states: AgentStates, private readonly recorder: Recorder, private readonly max: number) {}

  /** Continue the turn after a call the length limit cut, with the continuation notice where one is needed. */
  afterLengthLimit(agent: Agent, state: AgentState, call: CompletedCall, end: CallEnd): Completion | undefined {
    // Only a running turn can go on; a steer into an idle agent would start a new one.
    if (agent.status !== 'running') return undefined
    const max = this.max
    const locale = this.states.locale(state)
    const continued = state.continuations < max
    if (continued) state.continuations++
    const event: LoopBreakerContinueEventData = {
      turn: state.turn, step: state.step, action: continued ? 'continue' : 'end', count: state.continuations, max, ...end.cutToolCall === undefined ? {} : { cutToolCall: end.cutToolCall },
    }
    const line = continuationLine(locale, event, { continued, count: state.continuations, max, cutToolCall: end.cutToolCall?.name })
    this.recorder.record(agent, 'continue', event.action, event, line)
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
}
