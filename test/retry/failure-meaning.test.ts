import { describe, expect, it } from 'vitest'
import { classifyFailure } from '../../src/retry/index.ts'
import { statesAllowanceExhausted, statesContextOverflow } from '../../src/retry/failure-meaning.ts'
import { CONTEXT_OVERFLOW_PATTERNS, matchWording } from '../../src/retry/overflow-patterns.ts'
import { ALLOWANCE_WORDINGS, MEANING_OVERFLOW_WORDINGS, MEANING_TRAPS } from './provider-wordings.ts'

describe('a 4xx that states the prompt\'s token count is over the model\'s limit is a context overflow', () => {
  it.each(MEANING_OVERFLOW_WORDINGS)('%s: "%s"', (language, message) => {
    // Outside the provider table: the meaning rule is what decides it.
    expect(matchWording(CONTEXT_OVERFLOW_PATTERNS, message)).toBeUndefined()
    expect(statesContextOverflow(message)).toBe(language)
    for (const [code, status] of [['INVALID_REQUEST', 400], ['HTTP_422', 422], ['HTTP_404', 404]] as const) {
      expect(classifyFailure({ message, code, status })).toMatchObject({ kind: 'context-overflow', retryable: false, reason: expect.stringContaining(`${language} wording`) })
    }
  })

  it('needs a 4xx other than 429: a 429 compares a rate, a 5xx or no status is left to the other rules', () => {
    const [, message] = MEANING_OVERFLOW_WORDINGS[0]!
    expect(classifyFailure({ message, code: 'RATE_LIMIT', status: 429 }).kind).toBe('rate-limit')
    expect(classifyFailure({ message, code: 'SERVER', status: 500 }).kind).toBe('server')
    expect(classifyFailure({ message, code: 'UNKNOWN' }).kind).toBe('unknown')
  })
})

describe('a billing-period or plan allowance used up is quota, whatever the status', () => {
  it.each(ALLOWANCE_WORDINGS)('%s (HTTP %s): "%s"', (language, status, message) => {
    expect(statesAllowanceExhausted(message)).toBe(language)
    const code = status === 429 ? 'RATE_LIMIT' : status === 403 ? 'AUTH' : 'INVALID_REQUEST'
    expect(classifyFailure({ message, code, status })).toMatchObject({ kind: 'quota', retryable: false })
  })

  it('OpenAI\'s plan quota on a 429 is quota', () => {
    const message = 'You exceeded your current quota, please check your plan and billing details.'
    expect(statesAllowanceExhausted(message)).toBe('en')
    expect(classifyFailure({ message, code: 'RATE_LIMIT', status: 429 }).kind).toBe('quota')
  })
})

describe('the traps stay what they are', () => {
  it.each(MEANING_TRAPS)('%s (HTTP %s) is %s', (_what, status, message, kind) => {
    const code = status === 429 ? 'RATE_LIMIT' : 'INVALID_REQUEST'
    expect(classifyFailure({ message, code, status }).kind).toBe(kind)
  })
})

describe('the rules stay fast on hostile text', () => {
  it.each([
    ['a long number after a subject', `prompt ${'1'.repeat(20_000)} x`],
    ['long runs of separators', `input${' ,('.repeat(10_000)}exceeds`],
    ['a long clause of subjects and numbers', 'prompt tokens 1, '.repeat(3_000)],
    ['a long message in Chinese', '请求的 token 数'.repeat(5_000)],
  ])('%s', (_what, message) => {
    const started = performance.now()
    classifyFailure({ message, code: 'INVALID_REQUEST', status: 400 })
    classifyFailure({ message, code: 'RATE_LIMIT', status: 429 })
    expect(performance.now() - started).toBeLessThan(250)
  })
})
