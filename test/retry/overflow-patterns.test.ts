import { describe, expect, it } from 'vitest'
import { classifyFailure, CONTEXT_OVERFLOW_PATTERNS, OUTPUT_RESERVE_PATTERNS } from '../../src/retry/index.ts'
import type { WordingPattern } from '../../src/retry/index.ts'
import { CONTEXT_OVERFLOW_WORDINGS, OUTPUT_RESERVE_WORDINGS } from './provider-wordings.ts'

function everyRowHasAWording(rows: readonly WordingPattern[], wordings: Array<[string, string]>) {
  for (const row of rows) {
    const own = wordings.filter(([provider, message]) => provider === row.provider && row.pattern.test(message))
    expect(own.length, `${row.provider} ${row.pattern}`).toBeGreaterThan(0)
  }
}

describe('context overflow wordings', () => {
  it('cover at least 25 provider phrasings, each with its real text', () => {
    expect(CONTEXT_OVERFLOW_PATTERNS.length).toBeGreaterThanOrEqual(25)
    everyRowHasAWording(CONTEXT_OVERFLOW_PATTERNS, CONTEXT_OVERFLOW_WORDINGS.map(([p, , m]) => [p, m]))
  })

  it.each(CONTEXT_OVERFLOW_WORDINGS)('%s (HTTP %s): "%s" is a context overflow, never retried', (_provider, status, message) => {
    const code = status === 413 || status === 400 ? 'INVALID_REQUEST' : 'MODEL_CONTEXT_WINDOW_EXCEEDED'
    const result = classifyFailure({ message, code, ...(status === undefined ? {} : { status }) })
    expect(result).toMatchObject({ kind: 'context-overflow', retryable: false })
  })
})

describe('output reserve wordings', () => {
  it('each row has its real text', () => {
    everyRowHasAWording(OUTPUT_RESERVE_PATTERNS, OUTPUT_RESERVE_WORDINGS)
  })

  it.each(OUTPUT_RESERVE_WORDINGS)('%s: "%s" is an output-reserve overflow, not a context overflow', (_provider, message) => {
    expect(classifyFailure({ message, code: 'INVALID_REQUEST', status: 400 })).toMatchObject({ kind: 'output-reserve-overflow', retryable: false })
  })
})

describe('the traps around overflow wording', () => {
  it('a tokens-per-minute "Request too large" is a rate limit (OpenAI, 429)', () => {
    const message = 'Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.'
    expect(classifyFailure({ message, code: 'RATE_LIMIT', status: 429 }).kind).toBe('rate-limit')
  })

  it('a tokens-per-minute "Request too large" is a rate limit even on a 413 (Groq)', () => {
    const message = 'Request too large for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 7000, please reduce your message size and try again.'
    expect(classifyFailure({ message, code: 'INVALID_REQUEST', status: 413 }).kind).toBe('rate-limit')
  })

  it('"string above max length" is an invalid request (OpenAI)', () => {
    const message = "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead."
    expect(classifyFailure({ message, code: 'INVALID_REQUEST', status: 400 }).kind).toBe('invalid-request')
    expect(classifyFailure({ message: 'string_above_max_length', code: 'HTTP_400', status: 400 }).kind).toBe('invalid-request')
  })

  it('a "429" echoed inside prompt text is not a status', () => {
    const echoed = "Invalid 'messages[3].content': tool output 'HTTP 429 Too Many Requests' contains an unsupported character"
    expect(classifyFailure({ message: echoed, code: 'INVALID_REQUEST', status: 400 }).kind).toBe('invalid-request')
    expect(classifyFailure({ message: 'tool output: ERROR 429 at line 12', code: 'UNKNOWN' }).kind).toBe('unknown')
  })
})
