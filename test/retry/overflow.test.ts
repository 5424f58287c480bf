import { describe, expect, it } from 'vitest'
import { answerEvents, contentChunk, errorBody, finishChunk, json, sse } from '../support/deepseek-server.ts'
import { isContextWindowExceededError, isQuotaExceededError } from '@deepseek-ai/dsh-llm'
import { ALLOWANCE_WORDINGS, CONTEXT_OVERFLOW_WORDINGS, MEANING_OVERFLOW_WORDINGS } from './provider-wordings.ts'
import type { Handler } from '../support/deepseek-server.ts'
import { runScenario, sequence } from './scenario.ts'

const ok: Handler = ({ res }) => sse(res, answerEvents('done'))

// Two turns of history long enough that a summary shrinks them (compaction rejects a summary that
// does not), then the observed turn overflows once and fits after compaction.
const longAnswer: Handler = ({ res }) => sse(res, answerEvents('An earlier, long and detailed answer. '.repeat(200)))
const overflowOnce = (message: string, status = 400): Handler =>
  sequence(longAnswer, longAnswer, ({ res }) => json(res, status, errorBody(message)), ok)

describe('a context overflow is never retried as is: it reaches dsh-compaction-basic', () => {
  it('the canonical DeepSeek wording (CONTEXT_WINDOW_EXCEEDED) is compacted, then the request succeeds', async () => {
    const seen = await runScenario({
      executor: 'retry-coordinator',
      compaction: true,
      warmupTurns: 2,
      handler: overflowOnce("This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion). Please reduce the length of the messages or completion."),
    })
    expect(seen.retryEvents).toHaveLength(0)
    expect(seen.compacted).toBe(true)
    expect(seen.requests).toHaveLength(2)
    expect(seen.answer).toBe('done')
  })

  it.each([
    ['Anthropic-style wording the adapter codes INVALID_REQUEST', 400, 'prompt is too long: 213462 tokens > 200000 maximum'],
    ['a 413 the adapter codes INVALID_REQUEST', 413, 'Request Entity Too Large'],
  ])('%s still reaches compaction through the coordinator', async (_name, status, message) => {
    const seen = await runScenario({ executor: 'retry-coordinator', compaction: true, warmupTurns: 2, handler: overflowOnce(message, status) })
    expect(seen.retryEvents).toHaveLength(0)
    expect(seen.compacted).toBe(true)
    expect(seen.answer).toBe('done')
  })

  it('without the coordinator (dsh-llm-retry), the same Anthropic-style overflow ends the turn uncompacted', async () => {
    const seen = await runScenario({ executor: 'llm-retry', compaction: true, warmupTurns: 2, handler: overflowOnce('prompt is too long: 213462 tokens > 200000 maximum') })
    expect(seen.compacted).toBe(false)
    expect(seen.turnEnd).toMatchObject({ kind: 'error', error: { code: 'INVALID_REQUEST' } })
  })

  it('when compaction cannot help, the turn ends with the provider\'s original failure', async () => {
    const seen = await runScenario({
      executor: 'retry-coordinator',
      compaction: true,
      handler: ({ res }) => json(res, 400, errorBody('prompt is too long: 213462 tokens > 200000 maximum')),
    })
    expect(seen.requests).toHaveLength(1)
    expect(seen.retryEvents).toHaveLength(0)
    expect(seen.turnEnd).toMatchObject({ kind: 'error', error: { code: 'INVALID_REQUEST', message: 'prompt is too long: 213462 tokens > 200000 maximum' } })
  })
})

describe('every overflow wording, sent by the local endpoint through the real adapter, reaches compaction', () => {
  it.each(CONTEXT_OVERFLOW_WORDINGS)('%s (HTTP %s): "%s"', async (provider, status, message) => {
    // Z.ai's overflow is a finish reason inside a 200 stream; the no-body rows answer with an empty
    // body (the adapter then words it itself); every other one is an HTTP error with that message.
    const fail: Handler = status === undefined
      ? ({ res }) => sse(res, [contentChunk('Let me'), finishChunk(message.replace('model stopped: ', '')), '[DONE]'])
      : provider.includes('(no body)')
        ? ({ res }) => { res.writeHead(status); res.end() }
        : ({ res }) => json(res, status, errorBody(message))
    const seen = await runScenario({ executor: 'retry-coordinator', compaction: true, warmupTurns: 2, handler: sequence(longAnswer, longAnswer, fail, ok) })
    expect(seen.retryEvents).toHaveLength(0)
    expect(seen.compacted).toBe(true)
    expect(seen.answer).toBe('done')
  })
})

describe('classified by meaning, through the real adapter: wordings no table holds', () => {
  it.each(MEANING_OVERFLOW_WORDINGS)('%s overflow wording "%s" is compacted (CONTEXT_WINDOW_EXCEEDED), then the request succeeds', async (_language, message) => {
    // The adapter does not know this wording (it codes it INVALID_REQUEST): the coordinator's reading decides.
    expect(isContextWindowExceededError(message)).toBe(false)
    const seen = await runScenario({ executor: 'retry-coordinator', compaction: true, warmupTurns: 2, handler: overflowOnce(message) })
    expect(seen.retryEvents).toHaveLength(0)
    expect(seen.compacted).toBe(true)
    expect(seen.requests).toHaveLength(2)
    expect(seen.answer).toBe('done')
  })

  it('without the coordinator (dsh-llm-retry), the same wording ends the turn uncompacted', async () => {
    const [, message] = MEANING_OVERFLOW_WORDINGS[0]!
    const seen = await runScenario({ executor: 'llm-retry', compaction: true, warmupTurns: 2, handler: overflowOnce(message) })
    expect(seen.compacted).toBe(false)
    expect(seen.turnEnd).toMatchObject({ kind: 'error', error: { code: 'INVALID_REQUEST' } })
  })

  it.each(ALLOWANCE_WORDINGS.filter(([, status]) => status === 429))('%s allowance wording on a 429 "%s" ends the turn at once, as quota', async (_language, status, message) => {
    // The adapter codes a 429 whose quota wording it does not know RATE_LIMIT, which would be retried for nothing.
    expect(isQuotaExceededError(message)).toBe(false)
    const seen = await runScenario({ executor: 'retry-coordinator', handler: ({ res }) => json(res, status, errorBody(message)) })
    expect(seen.requests).toHaveLength(1)
    expect(seen.retryEvents).toHaveLength(0)
    expect(seen.turnEnd).toMatchObject({ kind: 'error', error: { code: 'RATE_LIMIT', status: 429 } })
    expect(seen.turnEnd.error!.message).toContain('has no quota or balance left')
    expect(seen.turnEnd.error!.message).toContain(message)
  })
})
