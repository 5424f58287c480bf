/**
 * Sending a request without its cropped steps (opt-in `crop`). The request's messages come from the
 * session log (dsh-agent-loop `buildRequest`), and no rc.8 hook rewrites them: `agent/request` proposes
 * only the call config, and `llm/stream`'s `next()` ignores its arguments. So this outermost (prepend)
 * `llm/stream` listener answers a request that needs a crop with a new call, built without the cropped
 * messages and marked as an agent-loop request, through the whole `llm/stream` chain again; that second
 * pass goes through here untouched. Every other listener, the plugin's guard and the grammar checker
 * included, sees only the cropped request, once. Which steps are cropped is step-crops.ts's; see
 * docs/continuation-and-crop.md#where-the-request-is-changed.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { isAgentLoopRequest, markAgentLoopRequest } from '@deepseek-ai/dsh-llm'
import type { GenerateOptions, StreamChunk } from '@deepseek-ai/dsh-llm'
import { JOURNAL_EVENT_TYPE, readJournalRecord } from '../journal.ts'
import type { AgentStates } from './agent-state.ts'
import type { ResolvedConfig } from './config.ts'
import type { LoopBreakerCropEventData } from './events.ts'
import { cropLine } from './messages.ts'
import type { Recorder } from './recorder.ts'
import { StepCrops } from './step-crops.ts'

export class CropReentry {
  /** Per agent, kept across user turns: a crop holds for the whole session. */
  private readonly crops = new WeakMap<Agent, StepCrops>()
  /** Requests this listener built without the cropped steps: they pass it untouched. */
  private readonly croppedRequests = new WeakSet<GenerateOptions>()

  constructor(
    private readonly ctx: Context,
    private readonly crop: ResolvedConfig['crop'],
    private readonly states: AgentStates,
    private readonly recorder: Recorder,
  ) {}

  /** The `llm/stream` listener: the request as it is, or the same request without its cropped steps. */
  stream(options: GenerateOptions, next: () => AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> {
    const crop = this.crop
    if (!crop.enabled || this.croppedRequests.has(options) || !isAgentLoopRequest(options)) return next()
    let agent: Agent | undefined
    let request: GenerateOptions
    try {
      // An agent-loop request names its session; one that does not belongs to no agent this plugin tracks.
      agent = options.sessionId === undefined ? undefined : this.ctx.agents.get(options.sessionId)
      if (agent === undefined) return next()
      const agentCrops = this.cropsOf(agent)
      const found = agentCrops.detect(options.messages, crop)
      if (found !== undefined) {
        agentCrops.add(found.messageIds)
        const state = this.states.of(agent)
        const event: LoopBreakerCropEventData = { turn: state.turn, step: state.step, ...found }
        this.recorder.record(agent, 'crop', 'crop', event, cropLine(this.states.locale(state), event, { steps: found.steps, messages: found.messageIds.length }))
      }
      const messages = agentCrops.apply(options.messages)
      if (messages === undefined) return next()
      // The messages are frozen already (the session's own); freezing the new arrays is enough.
      request = markAgentLoopRequest(Object.freeze({ ...options, messages: Object.freeze(messages) }) as GenerateOptions)
      this.croppedRequests.add(request)
    } catch (error) {
      this.recorder.failOpen(agent, error)
      return next()
    }
    return this.ctx.llm.stream(request)
  }

  /** The agent's crops, read back from its log the first time (a resumed session rebuilds them there). */
  private cropsOf(agent: Agent): StepCrops {
    let agentCrops = this.crops.get(agent)
    if (agentCrops !== undefined) return agentCrops
    agentCrops = new StepCrops()
    for (const event of agent.session.events) {
      if (event.type !== JOURNAL_EVENT_TYPE) continue
      const found = readJournalRecord(event.type, event.data)
      if (found?.name === 'loop-breaker/crop' && Array.isArray(found.data.messageIds)) agentCrops.add(found.data.messageIds as string[])
    }
    this.crops.set(agent, agentCrops)
    return agentCrops
  }
}
