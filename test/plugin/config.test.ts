import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, DETECTOR_SETTINGS } from '../../src/detector/index.ts'
import { Config } from '../../src/plugin/index.ts'
import { resolveConfig } from '../../src/plugin/config.ts'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost } from '../support/loop-breaker.ts'

const REACTION_DEFAULTS = {
  escalate: 'cancel', maxBreaksPerTurn: 3, maxFires: 6, resumeAfterBreak: false, trimHistory: true, journal: true,
  maxContinuations: 3, crop: false, cropAfter: 3, cropMaxSteps: 64,
}

describe('loop-breaker Config', () => {
  it('takes every detector default and description from the detector table, plus the reaction settings', () => {
    expect(Config({})).toEqual({ ...DEFAULT_CONFIG, ...REACTION_DEFAULTS })
    const fields = (Config as any).dict as Record<string, any>
    for (const [name, setting] of Object.entries(DETECTOR_SETTINGS)) {
      expect(fields[name].meta.default).toBe(setting.default)
      expect(fields[name].meta.description).toBe(setting.description)
    }
    for (const name of Object.keys(REACTION_DEFAULTS)) expect(fields[name].meta.description).toMatch(/\w{3}/)
    expect(Object.keys(fields).sort()).toEqual([...Object.keys(DETECTOR_SETTINGS), ...Object.keys(REACTION_DEFAULTS)].sort())
  })

  it('resolves a user patch that sets one threshold, the rest staying at their defaults', () => {
    const resolved = resolveConfig(Config({ textCycleMinSpan: 512, escalate: 'steer' }))
    expect(resolved.detector).toEqual({ ...DEFAULT_CONFIG, textCycleMinSpan: 512 })
    expect(resolved.escalation).toEqual({ escalate: 'steer', maxBreaksPerTurn: 3, maxFires: 6, resumeAfterBreak: false })
    expect(resolved.trimHistory).toBe(true)
  })

  it.each([
    [{ maxFires: 0 }, 'loop-breaker: maxFires must be an integer >= 1 (got 0)'],
    [{ maxBreaksPerTurn: 2.5 }, 'loop-breaker: maxBreaksPerTurn must be an integer >= 1 (got 2.5)'],
    [{ cycleMinPeriods: 1 }, 'loop-breaker: cycleMinPeriods must be at least 2 (got 1)'],
    [{ textCycleMinSpan: 100.5 }, 'loop-breaker: textCycleMinSpan must be an integer (got 100.5)'],
    [{ escalate: 'shout' }, 'escalate'],
    [{ trimHistory: 'yes' }, 'trimHistory'],
    [{ maxContinuations: -1 }, 'loop-breaker: maxContinuations must be an integer >= 0 (got -1)'],
    [{ crop: true, cropAfter: 1 }, 'loop-breaker: cropAfter must be an integer >= 2 (got 1)'],
  ])('fails loud at load on %o, naming the field and the value', async (config, message) => {
    await expect(createGuardedHost(() => textAnswer('x'), config as any)).rejects.toThrow(message)
  })

  it('rejects a setting it does not know, at load', async () => {
    await expect(createGuardedHost(() => textAnswer('x'), { cycleMinSpan: 10 } as any)).rejects.toThrow('loop-breaker: cycleMinSpan must be a known setting')
  })
})
