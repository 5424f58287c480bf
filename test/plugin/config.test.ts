import { describe, expect, it } from 'vitest'
import { resolveConfig as cordisResolveConfig } from '@deepseek-ai/cordis'
import { DEFAULT_CONFIG, DETECTOR_SETTINGS, resolveDetectorConfig } from '../../src/detector/index.ts'
import { Config } from '../../src/plugin/index.ts'
import { ConfigFields, resolveConfig } from '../../src/plugin/config.ts'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost } from '../support/loop-breaker.ts'

const REACTION_DEFAULTS = {
  escalate: 'cancel', maxBreaksPerTurn: 3, maxFires: 6, resumeAfterBreak: false, trimHistory: true, journal: true,
  maxContinuations: 3, crop: false, cropAfter: 3, cropMaxSteps: 64,
}

const fields = (ConfigFields as any).dict as Record<string, any>

/** What Cordis does with a plugin's config on load and on every live update (`Fiber.update`). */
function cordisValidates(config: unknown): unknown {
  return cordisResolveConfig({ Config } as any, config)
}

describe('loop-breaker Config', () => {
  it('takes every detector default, description and range from the detector table, plus the reaction settings', () => {
    expect(Config({})).toEqual({ ...DEFAULT_CONFIG, ...REACTION_DEFAULTS })
    for (const [name, setting] of Object.entries(DETECTOR_SETTINGS)) {
      expect(fields[name].meta.default).toBe(setting.default)
      expect(fields[name].meta.description).toBe(setting.description)
      expect(fields[name].meta.min, name).toBe(setting.min)
      expect(fields[name].meta.max, name).toBe(setting.max)
      expect(fields[name].meta.step, name).toBe(setting.integer ? 1 : undefined)
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

  it('treats an absent or empty config (a patch row with `config:` and nothing under it) as all defaults', () => {
    for (const empty of [undefined, null, {}, { maxFires: null }]) expect(cordisValidates(empty)).toEqual(Config({}))
  })

  // Each kind of mistake, as DSH's loader reports it: Cordis' "invalid config:" header, then one line
  // naming the row, the field, what it allows and the value given.
  it.each([
    ['negative', { maxFires: -1 }, 'loop-breaker: maxFires must be an integer >= 1 (got -1)'],
    ['zero', { maxFires: 0 }, 'loop-breaker: maxFires must be an integer >= 1 (got 0)'],
    ['non-integer', { maxBreaksPerTurn: 2.5 }, 'loop-breaker: maxBreaksPerTurn must be an integer >= 1 (got 2.5)'],
    ['non-integer threshold', { textCycleMinSpan: 100.5 }, 'loop-breaker: textCycleMinSpan must be an integer (got 100.5)'],
    ['below the range', { textCycleMinSpan: 3 }, 'loop-breaker: textCycleMinSpan must be at least 16 (got 3)'],
    ['above the range', { poolMinCoverage: 1.5 }, 'loop-breaker: poolMinCoverage must be at most 1 (got 1.5)'],
    ['not finite (YAML .nan)', { cycleMinPeriods: Number.NaN }, 'loop-breaker: cycleMinPeriods must be a finite number (got NaN)'],
    ['a combination no rule can trip on', { tokenPeriodMinDistinct: 40 }, 'loop-breaker: tokenPeriodMinDistinct must be at most tokenPeriodMaxBlock (32) (got 40)'],
    ['unknown key, a typo', { textCycleMinSpn: 512 }, 'loop-breaker: textCycleMinSpn is not a setting, did you mean textCycleMinSpan? (got textCycleMinSpn: 512)'],
    ['unknown key, wrong case', { maxfires: 3 }, 'loop-breaker: maxfires is not a setting, did you mean maxFires? (got maxfires: 3)'],
    ['unknown key, nothing close', { colour: 'red' }, `loop-breaker: colour is not a setting, the package's cordis.patch.yml lists every setting (got colour: "red")`],
    ['bad enum', { escalate: 'explode' }, `loop-breaker: escalate must be 'warn', 'steer' or 'cancel' (got "explode")`],
    ['wrong type, boolean', { trimHistory: 'yes' }, 'loop-breaker: trimHistory must be true or false (got "yes")'],
    ['negative continuation cap', { maxContinuations: -1 }, 'loop-breaker: maxContinuations must be an integer >= 0 (got -1)'],
    ['a crop of one step', { crop: true, cropAfter: 1 }, 'loop-breaker: cropAfter must be an integer >= 2 (got 1)'],
    ['wrong type, number', { textCycleMinSpan: '512' }, 'loop-breaker: textCycleMinSpan must be a finite number (got "512")'],
    ['wrong type, the whole config', [512], 'loop-breaker: config must be a mapping of settings (got [512])'],
  ])('%s: one line naming the row, the field, what is allowed and the value', (_kind, config, line) => {
    expect(line).not.toContain('\n')
    expect(() => cordisValidates(config)).toThrow(expect.objectContaining({ name: 'ValidationError', message: `invalid config:\n  - ${line}` }))
    // The plugin's own resolution goes through the same schema: the same line, never a second opinion.
    expect(() => resolveConfig(config as any)).toThrow(line)
  })

  it('reports the first mistake when there are several, in the order the patch lists them', () => {
    expect(() => cordisValidates({ escalate: 'explode', maxFires: -1 })).toThrow(/escalate must be/)
    expect(() => cordisValidates({ maxFires: -1, escalate: 'explode' })).toThrow(/maxFires must be/)
  })

  it('agrees with the detector on every threshold at and around its bounds (one home per constraint)', () => {
    for (const [name, setting] of Object.entries(DETECTOR_SETTINGS)) {
      const candidates = [setting.min - 1, setting.min, setting.default, setting.min + 0.5, ...(setting.max === undefined ? [] : [setting.max, setting.max + 1])]
      for (const value of candidates) {
        const detectorAccepts = accepts(() => resolveDetectorConfig({ [name]: value }))
        expect(accepts(() => cordisValidates({ [name]: value })), `${name}: ${value}`).toBe(detectorAccepts)
      }
    }
  })

  it('fails loud at load, naming the field and the value', async () => {
    await expect(createGuardedHost(() => textAnswer('x'), { maxFires: 0 })).rejects.toThrow('loop-breaker: maxFires must be an integer >= 1 (got 0)')
    await expect(createGuardedHost(() => textAnswer('x'), { cycleMinSpan: 10 } as any)).rejects.toThrow('loop-breaker: cycleMinSpan is not a setting')
  })
})

function accepts(run: () => unknown): boolean {
  try {
    run()
    return true
  } catch {
    return false
  }
}
