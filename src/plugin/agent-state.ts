/**
 * What the plugin keeps per agent, in a `WeakMap` keyed by the agent (as DSH's own plugins keep theirs),
 * and the language it speaks to that agent's model and user in. The state is replaced whenever a user
 * message enters (`agent/pre-step`), so every cap and the step history are per user turn; only what must
 * outlive a user turn is carried over.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import { CompletedCallJudges } from '../detector/index.ts'
import type { DetectorPlan } from '../detector/index.ts'
import { isUserSource } from '../message-source.ts'
import { Escalation } from './escalation.ts'
import type { EscalationSettings } from './escalation.ts'
import { chosenLocale, localeOfMessage, resolveLocale } from './messages.ts'
import type { Locale } from './messages.ts'

/** One agent's state in one user turn. */
export interface AgentState {
  turn: number
  step: number
  escalation: Escalation
  /**
   * The completed-call judges, carried over whole and told when the user speaks: at rc.8 a call with
   * reasoning and no output ends its turn, so stalled calls only line up across the user's "continue" messages.
   */
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

export class AgentStates {
  private readonly states = new WeakMap<Agent, AgentState>()

  /**
   * @param ctx - the plugin's context, where the user's chosen language is read.
   * @param settings - the detector's thresholds (for the judges) and the escalation settings.
   */
  constructor(
    private readonly ctx: Context,
    private readonly settings: { detector: DetectorPlan; escalation: EscalationSettings },
  ) {}

  /** The agent's state, made when the agent is first seen. */
  of(agent: Agent): AgentState {
    let state = this.states.get(agent)
    if (state === undefined) this.states.set(agent, (state = this.fresh(undefined)))
    return state
  }

  /** The `warn` notices waiting for the agent's next step, handed over once. */
  takePending(agent: Agent): UserMessage[] {
    return this.states.get(agent)?.pending.splice(0) ?? []
  }

  /** A step enters with `messages`: a user message among them starts a fresh state for the new user turn. */
  enterStep(agent: Agent, messages: readonly UserMessage[], turn: number, step: number): void {
    const previous = this.states.get(agent)
    const userMessages = messages.filter((message) => isUserSource(message.source))
    const state = previous === undefined || userMessages.length > 0 ? this.fresh(previous) : previous
    if (userMessages.length > 0) state.judges.userSpoke()
    state.turn = turn
    state.step = step
    for (const message of userMessages) state.spoken = localeOfMessage(message) ?? state.spoken
    this.states.set(agent, state)
  }

  /** The language of the notices and lines for the agent: the user's choice, else the language they write in. */
  locale(state: AgentState): Locale {
    return resolveLocale(chosenLocale(this.ctx), state.spoken)
  }

  private fresh(previous: AgentState | undefined): AgentState {
    return {
      turn: previous?.turn ?? 0,
      step: previous?.step ?? 0,
      escalation: new Escalation(this.settings.escalation),
      judges: previous?.judges ?? new CompletedCallJudges(this.settings.detector),
      pending: [],
      spoken: previous?.spoken,
      resume: previous?.resume,
      continuations: 0,
    }
  }
}
