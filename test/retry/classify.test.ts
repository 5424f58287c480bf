import { describe, expect, it } from 'vitest'
import { classifyFailure } from '../../src/retry/index.ts'

// What DSH adapters hand to agent/request-error (code + status + message), and thrown errors with causes.
describe('classifyFailure', () => {
  it.each([
    ['quota: DeepSeek 402', { message: 'Insufficient Balance', code: 'QUOTA', status: 402 }, 'quota'],
    ['quota: a bare 402', { message: 'DeepSeek API error (HTTP 402)', code: 'HTTP_402', status: 402 }, 'quota'],
    ['quota: OpenAI insufficient_quota on a 429', { message: 'You exceeded your current quota, please check your plan and billing details.', code: 'RATE_LIMIT', status: 429 }, 'quota'],
    ['quota: Anthropic credit balance', { message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.', code: 'INVALID_REQUEST', status: 400 }, 'quota'],
    ['auth: DeepSeek 401', { message: 'Authentication Fails, Your api key: ****abcd is invalid', code: 'AUTH', status: 401 }, 'auth'],
    ['auth: 403', { message: 'DeepSeek API error (HTTP 403)', code: 'AUTH', status: 403 }, 'auth'],
    ['auth: malformed local key', { message: 'llm-deepseek: the API key resolved from DEEPSEEK_API_KEY is blank', code: 'INVALID_CREDENTIAL' }, 'auth'],
    ['invalid request: 422', { message: 'Failed to deserialize the JSON body', code: 'HTTP_422', status: 422 }, 'invalid-request'],
    ['invalid request: unsupported effort', { message: 'DeepSeek does not support reasoning effort "ultra"', code: 'UNSUPPORTED_REASONING_EFFORT' }, 'invalid-request'],
    ['rate limit: 429', { message: 'Rate limit reached for requests', code: 'RATE_LIMIT', status: 429 }, 'rate-limit'],
    ['rate limit: Gemini RESOURCE_EXHAUSTED wording', { message: 'RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).', code: 'UNKNOWN' }, 'rate-limit'],
    ['server: 503', { message: 'Service Unavailable', code: 'SERVER', status: 503 }, 'server'],
    ['server: Anthropic 529 overloaded', { message: 'Overloaded', code: 'HTTP_529', status: 529 }, 'server'],
    ['server: 408', { message: 'Request Timeout', code: 'HTTP_408', status: 408 }, 'server'],
    ['server: 501 as the DeepSeek adapter codes it (SERVER)', { message: 'Not Implemented', code: 'SERVER', status: 501 }, 'server'],
    ['network: transport code', { message: 'DeepSeek API stream from http://127.0.0.1:1 failed', code: 'TRANSPORT' }, 'network'],
    ['network: idle timeout', { message: 'DeepSeek stream idle timeout after 300000ms', code: 'TIMEOUT' }, 'network'],
    ['stream: no [DONE]', { message: 'SSE stream ended without [DONE]', code: 'STREAM_CLOSED' }, 'stream'],
    ['stream: malformed payload', { message: 'malformed SSE payload: {"choi', code: 'MALFORMED_RESPONSE' }, 'stream'],
    ['empty response', { message: 'model returned a completed response with no content', code: 'EMPTY_RESPONSE' }, 'empty-response'],
    ['aborted', { message: 'DeepSeek request aborted by caller', code: 'ABORTED' }, 'aborted'],
    ['unknown: content filter finish', { message: 'model stopped: content_filter', code: 'CONTENT_FILTER' }, 'unknown'],
  ] as const)('%s', (_name, failure, kind) => {
    expect(classifyFailure(failure).kind).toBe(kind)
  })

  it('a 501 without a harness code is an invalid request (the method will never be implemented on retry)', () => {
    expect(classifyFailure({ message: 'Not Implemented', code: 'HTTP_501', status: 501 }).kind).toBe('invalid-request')
  })

  it('reads network error codes down the cause chain (undici: fetch failed → ECONNRESET)', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
    const fetchFailed = new TypeError('fetch failed', { cause: reset })
    expect(classifyFailure({ message: 'request failed', code: 'UNKNOWN', cause: fetchFailed })).toMatchObject({ kind: 'network', retryable: true })
    const hangUp = new Error('socket hang up')
    expect(classifyFailure({ message: 'request failed', code: 'UNKNOWN', cause: hangUp }).kind).toBe('network')
    expect(classifyFailure({ message: 'request failed', code: 'UNKNOWN', cause: Object.assign(new Error('x'), { code: 'ETIMEDOUT' }) }).kind).toBe('network')
  })

  it('survives a cyclic cause chain', () => {
    const a: any = new Error('a')
    const b: any = new Error('b', { cause: a })
    a.cause = b
    expect(classifyFailure({ message: 'outer', code: 'UNKNOWN', cause: a }).kind).toBe('unknown')
  })

  it('reports the server delay for retryable kinds: header first, then wording', () => {
    expect(classifyFailure({ message: 'Please try again in 20s.', code: 'RATE_LIMIT', status: 429, providerRetryAfterMs: 2000 }))
      .toMatchObject({ kind: 'rate-limit', retryable: true, serverDelayMs: 2000, serverDelaySource: 'server-header' })
    expect(classifyFailure({ message: 'Rate limit reached. Please try again in 1.898s.', code: 'RATE_LIMIT', status: 429 }))
      .toMatchObject({ serverDelayMs: 1898, serverDelaySource: 'message' })
    expect(classifyFailure({ message: 'Overloaded', code: 'SERVER', status: 529 }).serverDelayMs).toBeUndefined()
  })

  it('never reports a delay for kinds that are not retried', () => {
    const result = classifyFailure({ message: 'Insufficient Balance. Try again in 20s', code: 'QUOTA', status: 402, providerRetryAfterMs: 20_000 })
    expect(result).toEqual({ kind: 'quota', retryable: false, reason: expect.stringContaining('HTTP 402') })
  })
})
