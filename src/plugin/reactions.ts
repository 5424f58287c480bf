/**
 * The plugin's reactions to a finding: an in-stream cut (a trip) or a judge's verdict on a completed call
 * (a stall). Each asks the agent's escalation ladder what to do, is recorded with its log line at once,
 * and is carried out once the call that caused it has been delivered to the agent loop: a notice left for
 * the next step, steered into the turn, or the turn cancelled (and resumed when the ladder says so).
 */
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { CompletedCallFinding, Trip } from '../detector/index.ts'
import type { AgentState, AgentStates } from './agent-state.ts'
import type { Reaction } from './escalation.ts'
import type { LoopBreakerBreakEventData, LoopBreakerStallEventData } from './events.ts'
import type { Completion, TripDecision } from './guard-stream.ts'
import { createNotice, reactionLine } from './messages.ts'
import type { Finding } from './messages.ts'
import type { Recorder } from './recorder.ts'
import type { Resume } from './resume.ts'

/** The cancel cause a persisting loop ends its turn with. */
export const CANCEL_CAUSE = Object.freeze({ kind: 'hook', reason: 'repetition-loop' } as const)

export class Reactions {
  /**
   * @param states - the agents' states, for their ladder, pending notices and language.
   * @param recorder - where each reaction is recorded and said.
   * @param resume - follows a cancel up when the ladder asks for it.
   * @param trimHistory - whether a cut drops the repeated tail from what the model reads next.
   */
  constructor(
    private readonly states: AgentStates,
    private readonly recorder: Recorder,
    private readonly resume: Resume,
    private readonly trimHistory: boolean,
  ) {}

  /** A trip in the call's stream: it is cut, and the reaction runs once the cut is delivered. */
  toTrip(agent: Agent, state: AgentState, trip: Trip, loopChars: number): TripDecision {
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
    this.recorder.record(agent, 'break', reaction.action, event, reactionLine(this.states.locale(state), finding, event, reaction))
    return { cut: true, trimHistory: this.trimHistory, afterCut: () => this.carryOut(agent, state, finding, reaction) }
  }

  /** A judge's verdict on a completed call: the reaction runs once its finish is delivered. */
  toStall(agent: Agent, state: AgentState, verdict: CompletedCallFinding): Completion {
    const finding: Extract<Finding, { kind: 'stall' }> = { kind: 'stall', ...verdict }
    const reaction = state.escalation.react()
    const event: LoopBreakerStallEventData = {
      turn: state.turn, step: state.step, judge: finding.judge, reason: finding.reason, level: reaction.level, action: reaction.action,
    }
    this.recorder.record(agent, 'stall', reaction.action, event, reactionLine(this.states.locale(state), finding, event, reaction))
    return { after: () => this.carryOut(agent, state, finding, reaction) }
  }

  private carryOut(agent: Agent, state: AgentState, finding: Finding, reaction: Reaction): void {
    const locale = this.states.locale(state)
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
        if (reaction.resume) this.resume.afterCancel(agent, state, createNotice(locale, finding, 'resume', reaction.level))
        return
    }
  }
}
