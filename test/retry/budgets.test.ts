import { describe, expect, it } from 'vitest'
import { resolveConfig as cordisResolveConfig } from '@deepseek-ai/cordis'
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

  // As DSH's loader reports it, on load and on a live edit (docs/config.md#when-a-setting-is-wrong).
  it.each([
    [{ budgets: { 'rate-limit': { maxRetries: -1 } } }, 'retry-coordinator: budgets.rate-limit.maxRetries must be a non-negative integer (got -1)'],
    [{ budgets: { server: { maxRetries: '3' } } }, 'retry-coordinator: budgets.server.maxRetries must be a non-negative integer (got "3")'],
    [{ budgets: { server: { mode: 'forever' } } }, 'retry-coordinator: budgets.server.mode must be "bounded" or "persistent" (got "forever")'],
    [{ budgets: { server: 5 } }, 'retry-coordinator: budgets.server must be a mapping of budget fields (got 5)'],
    [{ budgets: [] }, 'retry-coordinator: budgets must be a mapping of retryable kinds (got [])'],
    [{ budget: { server: { maxRetries: 1 } } }, 'retry-coordinator: budget is not a setting, did you mean budgets? (got budget: {"server":{"maxRetries":1}})'],
  ])('a mistake is one line under Cordis\' "invalid config:" header: %j', (config, line) => {
    expect(() => cordisResolveConfig(retryCoordinator as any, config)).toThrow(expect.objectContaining({ name: 'ValidationError', message: `invalid config:\n  - ${line}` }))
  })

  it('a live edit with a mistake is rejected before the restart; the running coordinator keeps its budgets', async () => {
    const host = await createHost(() => textAnswer('unused'))
    try {
      const fiber = (host.ctx as any).plugin(retryCoordinator, { budgets: { server: { maxRetries: 2 } } }).ctx.fiber
      await fiber.await()
      expect(() => fiber.update({ budgets: { server: { maxRetries: -1 } } }, true)).toThrow('budgets.server.maxRetries must be a non-negative integer')
      expect(fiber.state).toBe(2) // Cordis' FiberState.ACTIVE
      expect(fiber.config.budgets).toEqual({ server: { maxRetries: 2 } })
      fiber.update({ budgets: { server: { maxRetries: 4 } } }, true)
      await fiber.await()
      expect(fiber.state).toBe(2)
      expect(fiber.config.budgets).toEqual({ server: { maxRetries: 4 } })
    } finally {
      await host.dispose()
    }
  })
})
