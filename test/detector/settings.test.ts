import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, DETECTOR_SETTINGS, resolveDetectorConfig } from '../../src/detector/index.ts'

describe('detector settings', () => {
  it('derives DEFAULT_CONFIG from the table, frozen, one entry per setting', () => {
    expect(Object.isFrozen(DEFAULT_CONFIG)).toBe(true)
    expect(Object.keys(DEFAULT_CONFIG).sort()).toEqual(Object.keys(DETECTOR_SETTINGS).sort())
    for (const [name, setting] of Object.entries(DETECTOR_SETTINGS)) {
      expect(DEFAULT_CONFIG[name as keyof typeof DEFAULT_CONFIG]).toBe(setting.default)
      expect(setting.description, name).toMatch(/^[A-Z].{20,}\.$/)
      expect(setting.description, name).not.toContain('\n')
      expect(setting.default, name).toBeGreaterThanOrEqual(setting.min)
      if (setting.max !== undefined) expect(setting.default, name).toBeLessThanOrEqual(setting.max)
      if (setting.integer) expect(Number.isInteger(setting.default), name).toBe(true)
    }
  })

  it('resolves to the defaults and overrides named fields', () => {
    expect(resolveDetectorConfig()).toBe(DEFAULT_CONFIG)
    expect(resolveDetectorConfig({})).toEqual(DEFAULT_CONFIG)
    const resolved = resolveDetectorConfig({ textCycleMaxPeriod: 0, poolMinCoverage: 0.75 })
    expect(resolved).toMatchObject({ textCycleMaxPeriod: 0, poolMinCoverage: 0.75, reasoningCycleMaxPeriod: DEFAULT_CONFIG.reasoningCycleMaxPeriod })
    expect(Object.isFrozen(resolved)).toBe(true)
  })

  it.each([
    [{ maxThinkingStep: 3 }, /^loop-breaker: maxThinkingStep must be one of the detector settings \(.*maxThinkingSteps.*\) \(got "maxThinkingStep"\)$/],
    [{ textCycleMaxPeriod: '512' }, 'loop-breaker: textCycleMaxPeriod must be a finite number (got "512")'],
    [{ textCycleMaxPeriod: Number.NaN }, 'loop-breaker: textCycleMaxPeriod must be a finite number (got NaN)'],
    [{ textCycleMaxPeriod: 12.5 }, 'loop-breaker: textCycleMaxPeriod must be an integer (got 12.5)'],
    [{ textCycleMaxPeriod: -1 }, 'loop-breaker: textCycleMaxPeriod must be at least 0 (got -1)'],
    [{ poolMinCoverage: 1.5 }, 'loop-breaker: poolMinCoverage must be at most 1 (got 1.5)'],
    [{ textPoolMinRepeatedChars: 4096 }, 'loop-breaker: textPoolMinRepeatedChars must be 0 or at most poolWindowChars (1024) (got 4096)'],
    [{ maxRepeatedSteps: 1 }, 'loop-breaker: maxRepeatedSteps must be 0 (off) or at least 2 (got 1)'],
    [{ maxAlternatingSteps: 3 }, 'loop-breaker: maxAlternatingSteps must be 0 (off) or at least 4 (got 3)'],
    [{ tokenPeriodMinDistinct: 40 }, 'loop-breaker: tokenPeriodMinDistinct must be at most tokenPeriodMaxBlock (32) (got 40)'],
  ])('fails loud on %j', (partial, message) => {
    expect(() => resolveDetectorConfig(partial as never)).toThrow(message)
  })
})
