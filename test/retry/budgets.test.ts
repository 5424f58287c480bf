import { describe, expect, it } from 'vitest'
import * as retryCoordinator from '../../src/retry/index.ts'
import { DEFAULT_BUDGETS, resolveBudgets } from '../../src/retry/index.ts'
import { createHost, textAnswer } from '../support/host.ts'

describe('budgets', () => {
  it('override the defaults field by field, globally then per provider', () => {
    const table = resolveBudgets({ 'rate-limit': { maxRetries: 3 } }, { 'deepseek-official': { 'rate-limit': { deadlineMs: 60_000 } } })
    expect(table.forProvider('other')['rate-limit']).toEqual({ ...DEFAULT_BUDGETS['rate-limit'], maxRetries: 3 })
    expect(table.forProvider('deepseek-official')['rate-limit']).toEqual({ ...DEFAULT_BUDGETS['rate-limit'], maxRetries: 3, deadlineMs: 60_000 })
    expect(table.forProvider('deepseek-official').server).toEqual(DEFAULT_BUDGETS.server)
  })

  it('every default has a finite deadline, persistent kinds included', () => {
    for (const budget of Object.values(DEFAULT_BUDGETS)) expect(Number.isFinite(budget.deadlineMs)).toBe(true)
  })

  it.each([
    [{ budgets: { 'rate-limit': { maxRetries: -1 } } }, 'retry-coordinator: budgets.rate-limit.maxRetries must be a non-negative integer (got -1)'],
    [{ budgets: { ratelimit: { maxRetries: 1 } } }, 'retry-coordinator: budgets has no retryable kind "ratelimit"'],
    [{ budgets: { 'context-overflow': { maxRetries: 1 } } }, 'retry-coordinator: budgets has no retryable kind "context-overflow"'],
    [{ budgets: { server: { maxRetry: 1 } } }, 'retry-coordinator: budgets.server has no field "maxRetry"'],
    [{ budgets: { network: { deadlineMs: 0 } } }, 'retry-coordinator: budgets.network.deadlineMs must be a positive integer'],
    [{ budgets: { stream: { jitterRatio: 1.5 } } }, 'retry-coordinator: budgets.stream.jitterRatio must be a number from 0 to 1 (got 1.5)'],
    [{ budgets: { server: { initialDelayMs: 60_000 } } }, 'retry-coordinator: budgets.server.initialDelayMs must not exceed maxDelayMs 30000 (got 60000)'],
    [{ providers: { 'deepseek-official': { server: { maxServerDelayMs: -5 } } } }, 'retry-coordinator: providers.deepseek-official.server.maxServerDelayMs must be an integer'],
  ])('bad config fails the plugin at load: %j', async (config, message) => {
    await expect(createHost(() => textAnswer('unused'), { after: [[retryCoordinator, config]] })).rejects.toThrow(message)
  })
})
