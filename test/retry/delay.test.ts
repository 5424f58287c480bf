import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { computeDelay, DEFAULT_BUDGETS, parseMessageDelay, serverDelay } from '../../src/retry/index.ts'

describe('parseMessageDelay', () => {
  it.each([
    ['Rate limit reached for gpt-4o. Please try again in 20s.', 20_000],
    ['Please retry after 1.5 seconds', 1500],
    ['Please retry in 30.5s.', 30_500],
    ['Resource exhausted, retry in 2m', 120_000],
    ['try again in 500ms', 500],
    ['Please try again in 6ms.', 6],
    ['Please try again in 7m12s.', 432_000],
    ['Please try again in 2m59.56s.', 179_560],
    ['Rate limit exceeded. Try again in 1 minute', 60_000],
    ['retrying after 2 hours', 7_200_000],
    ['Please retry in 30.500913118s.', 30_501],
  ])('"%s" → %i ms', (message, ms) => {
    expect(parseMessageDelay(message)).toBe(ms)
  })

  it.each([
    'Please try again later.',
    'You can retry in a moment',
    'try again in 20 steps',
    'The request took 20s',
    'in 20s the model will reload',
  ])('"%s" names no delay', (message) => {
    expect(parseMessageDelay(message)).toBeUndefined()
  })
})

describe('serverDelay', () => {
  it('prefers the adapter\'s Retry-After mapping over the wording', () => {
    expect(serverDelay({ message: 'try again in 20s', providerRetryAfterMs: 2000 })).toEqual({ ms: 2000, source: 'server-header' })
    expect(serverDelay({ message: 'try again in 20s' })).toEqual({ ms: 20_000, source: 'message' })
    expect(serverDelay({ message: 'busy' })).toBeUndefined()
  })
})

describe('computeDelay', () => {
  const budget = DEFAULT_BUDGETS.server

  it('backs off exponentially from initialDelayMs, capped at maxDelayMs, jitter only adding', () => {
    const noJitter = { ...budget, jitterRatio: 0 }
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => computeDelay(attempt, noJitter).delayMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
    expect(computeDelay(1, budget, undefined, () => 1).delayMs).toBe(1200)
    expect(computeDelay(1, budget, undefined, () => 0)).toEqual({ delayMs: 1000, source: 'backoff' })
  })

  it('uses the server delay with jitter on top, beyond maxDelayMs when the server asks for more', () => {
    expect(computeDelay(1, budget, { ms: 2000, source: 'server-header' }, () => 1)).toEqual({ delayMs: 2400, source: 'server-header', serverDelayMs: 2000 })
    expect(computeDelay(1, budget, { ms: 45_000, source: 'message' }, () => 1).delayMs).toBe(45_000)
  })

  it('property: never earlier than the server asked, never above the cap', () => {
    const budgets = fc.record({
      initialDelayMs: fc.integer({ min: 0, max: 10_000 }),
      maxDelayMs: fc.integer({ min: 10_000, max: 600_000 }),
      jitterRatio: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    fc.assert(fc.property(
      budgets,
      fc.integer({ min: 1, max: 50 }),
      fc.option(fc.integer({ min: 1, max: 3_600_000 }), { nil: undefined }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (budget, attempt, server, random) => {
        const { delayMs } = computeDelay(attempt, budget, server === undefined ? undefined : { ms: server, source: 'server-header' }, () => random)
        if (server !== undefined) {
          expect(delayMs).toBeGreaterThanOrEqual(server)
          expect(delayMs).toBeLessThanOrEqual(Math.max(budget.maxDelayMs, server))
        } else {
          expect(delayMs).toBeGreaterThanOrEqual(Math.min(budget.initialDelayMs, budget.maxDelayMs))
          expect(delayMs).toBeLessThanOrEqual(budget.maxDelayMs)
        }
      },
    ), { numRuns: 2000 })
  })
})
