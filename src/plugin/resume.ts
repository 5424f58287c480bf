/**
 * Resuming a cancelled turn (`resumeAfterBreak`): the resume notice follows the cancel at once, and the
 * resume is recorded when a request carrying that notice goes to the model, the moment the task really
 * goes on. A disposed plugin resumes nothing.
 */
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { GenerateOptions, UserMessage } from '@deepseek-ai/dsh-llm'
import type { AgentState, AgentStates } from './agent-state.ts'
import type { LoopBreakerResumeEventData } from './events.ts'
import { resumeLine } from './messages.ts'
import type { Recorder } from './recorder.ts'

export class Resume {
  private stopped = false

  constructor(private readonly states: AgentStates, private readonly recorder: Recorder) {}

  /** The plugin is disposed: no agent is resumed from now on. */
  stop(): void {
    this.stopped = true
  }

  /**
   * Follow up with the resume notice right after the cancel. DSH queues input sent after a cancel behind
   * the cancelled activity and starts its turn once that activity has unwound, without the agent settling
   * idle in between, so whoever waits for the agent (a headless run) waits for the resumed turn too. A
   * message the user queued meanwhile stays first in the queue: its turn runs, then the notice's.
   */
  afterCancel(agent: Agent, state: AgentState, notice: UserMessage): void {
    if (this.stopped) return
    state.resume = { noticeId: notice.id, cancelledTurn: state.turn }
    agent.followup(notice)
  }

  /** Record the resume once a request that carries the resume notice goes to the model. */
  recordIfSent(agent: Agent, state: AgentState, request: GenerateOptions): void {
    const resume = state.resume
    if (resume === undefined || !request.messages.some((message) => message.id === resume.noticeId)) return
    state.resume = undefined
    const event: LoopBreakerResumeEventData = { turn: state.turn, step: state.step }
    this.recorder.record(agent, 'resume', 'resume', event, resumeLine(this.states.locale(state), { turn: resume.cancelledTurn }))
  }
}
