/**
 * One retry scenario end to end: the real DeepSeek adapter in a real agent loop against the local
 * endpoint, with either this package's `retry-coordinator` or DSH's own `dsh-llm-retry` as the retry
 * executor (optionally with the real `dsh-compaction-basic` behind it), under DSH's own invariant
 * checkers: the stream grammar and `dsh-llm-retry`'s rules for `llm/retry` records, which the
 * coordinator writes too. Returns what was observed, so the coordinator tests and the comparison with
 * `dsh-llm-retry` read the same facts.
 */
import { performance } from 'node:perf_hooks'
import * as llmRetry from '@deepseek-ai/dsh-llm-retry'
import * as llmRetryInvariant from '@deepseek-ai/dsh-llm-retry/invariant'
import * as invariantsPlugin from '@deepseek-ai/dsh-invariants'
import * as llmInvariant from '@deepseek-ai/dsh-llm/invariant'
import { BasicCompactionEngine } from '@deepseek-ai/dsh-compaction-basic'
import TokenMeter from '@deepseek-ai/dsh-token-meter'
import type { Config as DeepSeekConfig } from '@deepseek-ai/dsh-llm-deepseek'
import * as retryCoordinator from '../../src/retry/index.ts'
import type { Config as CoordinatorConfig } from '../../src/retry/index.ts'
import { answerEvents, createDeepSeekHost, sse, startDeepSeekServer } from '../support/deepseek-server.ts'
import type { Handler, RecordedRequest } from '../support/deepseek-server.ts'

export type Executor = 'retry-coordinator' | 'llm-retry'

export interface ScenarioOptions {
  executor: Executor
  /** Answers every request that is not a compaction summary call. */
  handler: Handler
  coordinator?: CoordinatorConfig
  /** The adapter's `retryPolicy`, which is what configures `dsh-llm-retry`. */
  retryPolicy?: DeepSeekConfig['retryPolicy']
  /** Mount the real dsh-compaction-basic (and the token meter it needs). */
  compaction?: boolean
  /** Turns sent before the observed one (answered by `handler` too). */
  warmupTurns?: number
  /** Cancel the agent this many ms after the observed turn starts. */
  cancelAfterMs?: number
  /** Runs before the observed turn (e.g. to add a listener that seeds durable events). */
  prepare?: (agent: any, ctx: any) => void
}

export interface Observation {
  /** Requests of the observed turn (compaction summary calls excluded). */
  requests: RecordedRequest[]
  /** ms between one attempt's response closing and the next attempt arriving. */
  gapsMs: number[]
  turnEnd: { kind: string; error?: { message: string; code: string } }
  /** Epoch ms of the observed turn's `turn/end`. */
  turnEndTime: number
  answer?: string
  events: any[]
  /** `llm/retry` records (both executors write that type). */
  retryEvents: any[]
  compacted: boolean
  elapsedMs: number
  /** ms from cancel() to the agent being idle, when the scenario cancelled. */
  cancelToIdleMs?: number
}

const isCompactionCall = (request: RecordedRequest) => request.headers['x-deepseek-harness-compact'] === '1'

export async function runScenario(options: ScenarioOptions): Promise<Observation> {
  const server = await startDeepSeekServer(async (exchange) => {
    if (isCompactionCall(exchange.request)) return sse(exchange.res, answerEvents('Summary: the user greeted the assistant several times.'))
    return options.handler(exchange)
  })
  const after: Array<[any, any?]> = [[llmRetryInvariant]]
  if (options.compaction) after.push([TokenMeter], [BasicCompactionEngine, {}])
  after.push(options.executor === 'retry-coordinator' ? [retryCoordinator, options.coordinator ?? {}] : [llmRetry, {}])
  const host = await createDeepSeekHost(server, {
    before: [[invariantsPlugin], [llmInvariant]],
    after,
    adapter: options.retryPolicy === undefined ? {} : { retryPolicy: options.retryPolicy },
  })
  try {
    const agent = host.createAgent()
    for (let turn = 0; turn < (options.warmupTurns ?? 0); turn++) await host.ask(agent, `warm-up ${turn}`)
    options.prepare?.(agent, host.ctx)
    const firstObserved = server.requests.length
    const startedEvents = agent.session.events.length
    const started = performance.now()
    let cancelToIdleMs: number | undefined
    const asked = host.ask(agent, 'please answer')
    if (options.cancelAfterMs !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, options.cancelAfterMs))
      const cancelledAt = performance.now()
      agent.cancel({ kind: 'hook', reason: 'test cancels during the retry wait' })
      await agent.whenIdle()
      cancelToIdleMs = performance.now() - cancelledAt
    }
    await asked
    const elapsedMs = performance.now() - started
    const events = agent.session.events.slice(startedEvents)
    const requests = server.requests.slice(firstObserved).filter((request) => !isCompactionCall(request))
    const gapsMs = requests.slice(1).map((request, i) => request.receivedAt - requests[i].closedAt!)
    const turnEndEvent = events.filter((event: any) => event.type === 'turn/end').at(-1)
    const message = events.filter((event: any) => event.type === 'assistant/message' && !event.data.interrupted).at(-1)?.data.message
    const answer = message?.content.filter((block: any) => block.type === 'text').map((block: any) => block.text).join('')
    if (server.errors.length > 0) throw server.errors[0]
    return {
      requests,
      gapsMs,
      turnEnd: turnEndEvent?.data.reason,
      turnEndTime: turnEndEvent?.time,
      answer,
      events,
      retryEvents: events.filter((event: any) => event.type === 'llm/retry'),
      compacted: events.some((event: any) => event.type === 'compaction/summary'),
      elapsedMs,
      ...(cancelToIdleMs === undefined ? {} : { cancelToIdleMs }),
    }
  } finally {
    await host.dispose()
    await server.close()
  }
}

/** A handler that answers the n-th observed request with `responders[n]` (the last one repeats). */
export function sequence(...responders: Handler[]): Handler {
  let calls = 0
  return (exchange) => responders[Math.min(calls++, responders.length - 1)](exchange)
}
