/**
 * The same scripted endpoint scenarios under this package's retry-coordinator and under DSH's own
 * dsh-llm-retry (their defaults, except the first local backoff step, 20 ms on both sides so the suite
 * stays fast; server-directed delays are untouched). Each case asserts what each executor did; the table the
 * README shows is printed from these observations at the end (`npx vitest run test/retry/comparison`).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { answerEvents, contentChunk, errorBody, json, reset, sse, writeEvent } from '../support/deepseek-server.ts'
import type { Handler } from '../support/deepseek-server.ts'
import { runScenario, sequence } from './scenario.ts'
import type { Executor, Observation, ScenarioOptions } from './scenario.ts'

const ok: Handler = ({ res }) => sse(res, answerEvents('done'))
const longAnswer: Handler = ({ res }) => sse(res, answerEvents('An earlier, long and detailed answer. '.repeat(200)))
// Only the first backoff step is shortened; maxDelayMs stays at each side's default because
// dsh-llm-retry also uses it as its ceiling for server-directed delays.
const fastBackoff = { initialDelayMs: 20 }
const coordinatorFast = { budgets: { 'rate-limit': fastBackoff, server: fastBackoff, network: fastBackoff, stream: fastBackoff, 'empty-response': fastBackoff } }
const llmRetryFast = { mode: 'normal' as const, backoff: fastBackoff }

const rows = new Map<string, Partial<Record<Executor, string>>>()

function summary(seen: Observation): string {
  const retries = seen.requests.length - 1
  const parts: string[] = []
  if (seen.compacted) parts.push('compacted')
  if (retries > 0) parts.push(`${retries} ${retries === 1 ? 'retry' : 'retries'}${seen.gapsMs.length > 0 ? ` (first after ${(seen.gapsMs[0] / 1000).toFixed(2)} s)` : ''}`)
  else parts.push('no retry')
  if (seen.cancelToIdleMs !== undefined) parts.push(`idle ${Math.round(seen.cancelToIdleMs)} ms after cancel`)
  if (seen.turnEnd.kind === 'completed') parts.push('answered')
  else if (seen.turnEnd.kind === 'aborted') parts.push('turn aborted')
  else parts.push(`turn error: "${seen.turnEnd.error!.message.length > 90 ? `${seen.turnEnd.error!.message.slice(0, 90)}…` : seen.turnEnd.error!.message}"`)
  return parts.join('; ')
}

/** `options` is called once per executor, so each run gets fresh handler state. */
async function both(scenario: string, options: () => Omit<ScenarioOptions, 'executor'>) {
  const coordinator = await runScenario({ ...options(), executor: 'retry-coordinator', coordinator: coordinatorFast })
  const llmRetry = await runScenario({ ...options(), executor: 'llm-retry', retryPolicy: llmRetryFast })
  rows.set(scenario, { 'retry-coordinator': summary(coordinator), 'llm-retry': summary(llmRetry) })
  return { coordinator, llmRetry }
}

afterAll(() => {
  const lines = ['| scenario | retry-coordinator | dsh-llm-retry |', '|---|---|---|']
  for (const [scenario, cells] of rows) lines.push(`| ${scenario} | ${cells['retry-coordinator']} | ${cells['llm-retry']} |`)
  console.log(lines.join('\n'))
})

describe('retry-coordinator and dsh-llm-retry on the same endpoint scenarios', () => {
  it('429 with Retry-After: 2: both wait for the server', async () => {
    const { coordinator, llmRetry } = await both('429, `Retry-After: 2`', () => ({ handler: sequence(({ res }) => json(res, 429, errorBody('Rate limit reached'), { 'retry-after': '2' }), ok) }))
    for (const seen of [coordinator, llmRetry]) {
      expect(seen.gapsMs[0]).toBeGreaterThanOrEqual(2000)
      expect(seen.answer).toBe('done')
    }
  })

  it('429 with Retry-After as an HTTP date: both wait until it', async () => {
    const arrivals: number[] = []
    let until = 0
    const handler = () => sequence(({ res }) => {
      until = Math.ceil(Date.now() / 1000) * 1000 + 1000
      json(res, 429, errorBody('Too Many Requests'), { 'retry-after': new Date(until).toUTCString() })
    }, (exchange) => { arrivals.push(Date.now() - until); return ok(exchange) })
    const { coordinator, llmRetry } = await both('429, `Retry-After: <HTTP date>`', () => ({ handler: handler() }))
    expect(arrivals).toHaveLength(2)
    expect(arrivals.every((early) => early >= 0)).toBe(true)
    expect([coordinator.answer, llmRetry.answer]).toEqual(['done', 'done'])
  })

  it('429 naming its delay only in the message: only the coordinator waits for it', async () => {
    const { coordinator, llmRetry } = await both('429, body "Please try again in 1.2s", no header', () => ({
      handler: sequence(({ res }) => json(res, 429, errorBody('Rate limit reached for requests. Please try again in 1.2s.')), ok),
    }))
    expect(coordinator.gapsMs[0]).toBeGreaterThanOrEqual(1200)
    expect(llmRetry.gapsMs[0]).toBeLessThan(1200)
  })

  it('429 with Retry-After: 600: both stop at once; the coordinator says why and what to do', async () => {
    const { coordinator, llmRetry } = await both('429, `Retry-After: 600`', () => ({ handler: ({ res }) => json(res, 429, errorBody('Rate limit reached'), { 'retry-after': '600' }) }))
    for (const seen of [coordinator, llmRetry]) {
      expect(seen.requests).toHaveLength(1)
      expect(seen.elapsedMs).toBeLessThan(1000)
    }
    expect(coordinator.turnEnd.error!.message).toContain('asked to wait 600 s')
    expect(llmRetry.turnEnd.error!.message).toBe('Rate limit reached')
  })

  it('503 every time: both give up after their count', async () => {
    const { coordinator, llmRetry } = await both('503 on every attempt', () => ({ handler: ({ res }) => json(res, 503, errorBody('Service Unavailable')) }))
    expect(coordinator.requests).toHaveLength(7)
    expect(llmRetry.requests).toHaveLength(6)
    expect(coordinator.turnEnd.error!.message).toContain('Gave up after 6 retries')
    expect(llmRetry.turnEnd.error!.message).toBe('Service Unavailable')
  })

  it('connection reset mid-stream: both retry', async () => {
    const { coordinator, llmRetry } = await both('connection reset mid-stream', () => ({
      handler: sequence(({ res }) => { writeEvent(res, contentChunk('partial')); setTimeout(() => reset(res), 20) }, ok),
    }))
    expect([coordinator.answer, llmRetry.answer]).toEqual(['done', 'done'])
  })

  it('a stream that ends without [DONE]: only the coordinator retries', async () => {
    const { coordinator, llmRetry } = await both('stream ends without `[DONE]`', () => ({
      handler: sequence(({ res }) => { writeEvent(res, contentChunk('partial')); res.end() }, ok),
    }))
    expect(coordinator.answer).toBe('done')
    expect(llmRetry.turnEnd).toMatchObject({ kind: 'error', error: { code: 'STREAM_CLOSED' } })
  })

  it('an empty completion: both retry', async () => {
    const { coordinator, llmRetry } = await both('empty completion (`stop`, no content)', () => ({
      handler: sequence(({ res }) => sse(res, [{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }, '[DONE]']), ok),
    }))
    expect([coordinator.answer, llmRetry.answer]).toEqual(['done', 'done'])
  })

  it('413 "Request too large … tokens per minute": a rate limit to the coordinator only', async () => {
    const message = 'Request too large for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 7000, please reduce your message size and try again.'
    const { coordinator, llmRetry } = await both('413 tokens-per-minute "Request too large"', () => ({ handler: sequence(({ res }) => json(res, 413, errorBody(message)), ok) }))
    expect(coordinator.retryEvents[0].data.kind).toBe('rate-limit')
    expect(coordinator.answer).toBe('done')
    expect(llmRetry.turnEnd).toMatchObject({ kind: 'error', error: { code: 'INVALID_REQUEST' } })
  })

  it('400 overflow in DeepSeek wording, compaction mounted: both compact and retry', async () => {
    const message = "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion). Please reduce the length of the messages or completion."
    const { coordinator, llmRetry } = await both('400 overflow, DeepSeek wording (+ compaction)', () => ({
      compaction: true, warmupTurns: 2, handler: sequence(longAnswer, longAnswer, ({ res }) => json(res, 400, errorBody(message)), ok),
    }))
    for (const seen of [coordinator, llmRetry]) expect([seen.compacted, seen.answer]).toEqual([true, 'done'])
  })

  it('400 overflow in Anthropic wording, compaction mounted: only the coordinator gets it compacted', async () => {
    const { coordinator, llmRetry } = await both('400 overflow, "prompt is too long" (+ compaction)', () => ({
      compaction: true, warmupTurns: 2, handler: sequence(longAnswer, longAnswer, ({ res }) => json(res, 400, errorBody('prompt is too long: 213462 tokens > 200000 maximum')), ok),
    }))
    expect([coordinator.compacted, coordinator.answer]).toEqual([true, 'done'])
    expect([llmRetry.compacted, llmRetry.turnEnd.kind]).toEqual([false, 'error'])
  })

  it('402 and 401: neither retries; the coordinator says what to do', async () => {
    const quota = await both('402 "Insufficient Balance"', () => ({ handler: ({ res }) => json(res, 402, errorBody('Insufficient Balance')) }))
    const auth = await both('401 invalid key', () => ({ handler: ({ res }) => json(res, 401, errorBody('Authentication Fails, Your api key: ****mmy is invalid')) }))
    for (const { coordinator, llmRetry } of [quota, auth]) {
      expect([coordinator.requests.length, llmRetry.requests.length]).toEqual([1, 1])
      expect(coordinator.turnEnd.error!.message.length).toBeGreaterThan(llmRetry.turnEnd.error!.message.length)
    }
  })

  it('cancel during a 5 s server-directed wait: both return at once', async () => {
    const { coordinator, llmRetry } = await both('cancel during a `Retry-After: 5` wait', () => ({
      handler: ({ res }) => json(res, 429, errorBody('Rate limit reached'), { 'retry-after': '5' }),
      cancelAfterMs: 300,
    }))
    for (const seen of [coordinator, llmRetry]) {
      expect(seen.cancelToIdleMs).toBeLessThan(100)
      expect(seen.requests).toHaveLength(1)
    }
  })
})
