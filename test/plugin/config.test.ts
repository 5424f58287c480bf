import { describe, expect, it } from 'vitest'
import { resolveConfig as cordisResolveConfig } from '@deepseek-ai/cordis'
import { DEFAULT_CONFIG, DETECTOR_SETTINGS, DetectorPlan } from '../../src/detector/index.ts'
import { Config } from '../../src/plugin/index.ts'
import { ConfigFields, resolveConfig } from '../../src/plugin/config.ts'
import { retiredSettingsLine } from '../../src/plugin/setting-names.ts'
import { loopBreakerRows, parsePatchFile } from '../../src/session/index.ts'
import { readFile } from 'node:fs/promises'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost } from '../support/loop-breaker.ts'

const DEFAULTS = {
  reasoning: 'full', text: 'full', tool: 'full', steps: true,
  escalate: 'cancel', maxBreaksPerTurn: 3, maxFires: 6, resumeAfterBreak: false, trimHistory: true, journal: true,
  maxContinuations: 3, crop: false,
}

const fields = (ConfigFields as any).dict as Record<string, any>

/** What Cordis does with a plugin's config on load and on every live update (`Fiber.update`). */
function cordisValidates(config: unknown): unknown {
  return cordisResolveConfig({ Config } as any, config)
}

describe('loop-breaker Config', () => {
  it('has twelve settings, each with a default and a description; no detector threshold among them', () => {
    expect(Config({})).toEqual(DEFAULTS)
    expect(Object.keys(fields).sort()).toEqual(Object.keys(DEFAULTS).sort())
    expect(Object.keys(fields).length).toBeLessThanOrEqual(12)
    for (const name of Object.keys(DEFAULTS)) expect(fields[name].meta.description, name).toMatch(/\w{3}/)
    for (const name of Object.keys(DETECTOR_SETTINGS)) expect(fields[name], name).toBeUndefined()
  })

  it('resolves the guards once into one plan: every threshold at its default, each side its rules', () => {
    const resolved = resolveConfig(Config({ reasoning: 'verbatim', tool: 'off', steps: false, escalate: 'steer' }))
    expect(resolved.detector).toBeInstanceOf(DetectorPlan)
    expect(resolved.detector.config).toEqual(DEFAULT_CONFIG)
    expect(resolved.detector.guards).toEqual({ reasoning: 'verbatim', text: 'full', tool: 'off', steps: false })
    // 'verbatim' turns the near-repetition rule off by its own convention (a span of 0), and only there.
    expect(resolved.detector.reasoning?.novelty.minSpan).toBe(0)
    expect(resolved.detector.text?.novelty.minSpan).toBe(DEFAULT_CONFIG.noveltyMinSpan)
    expect(resolved.detector.reasoning?.cycle.minSpan).toBe(DEFAULT_CONFIG.reasoningCycleMinSpan)
    expect(resolved.detector.tool).toBeUndefined()
    expect(resolved.escalation).toEqual({ escalate: 'steer', maxBreaksPerTurn: 3, maxFires: 6, resumeAfterBreak: false })
    expect(resolved.trimHistory).toBe(true)
    expect(resolved.crop).toEqual({ enabled: false })
    // The crop lands with the step judge's notice of the same repeat: the judge's count.
    expect(resolveConfig(Config({ crop: true })).crop).toEqual({ enabled: true, cropAfter: DEFAULT_CONFIG.maxRepeatedSteps, cropMaxSteps: 64 })
  })

  it('takes a config of an earlier version, leaving its thresholds out, and names what replaces each in one line', async () => {
    const [earlier] = loopBreakerRows(parsePatchFile(await readFile('test/fixtures/patches/bundle-0.1.0.patch.yml', 'utf8'), 'bundle-0.1.0.patch.yml')) as Array<Record<string, unknown>>
    const tuned = { ...earlier, textCycleMinSpan: 512, escalate: 'warn' }
    expect(cordisValidates(tuned)).toMatchObject({ escalate: 'warn', text: 'full' })
    expect(resolveConfig(tuned as any).detector.config).toEqual(DEFAULT_CONFIG)
    const line = retiredSettingsLine(tuned)!
    expect(line).not.toContain('\n')
    const retired = Object.keys(earlier).filter((name) => !Object.hasOwn(DEFAULTS, name))
    expect(retired).toHaveLength(61)
    expect(line).toContain(`loop-breaker: 61 settings of an earlier version left out`)
    expect(line).toContain('reasoningCycleMaxPeriod, reasoningCycleMinSpan, reasoningPoolMinRepeatedChars → reasoning;')
    expect(line).toMatch(/textCycleMaxPeriod, textCycleMinSpan, textPoolMinRepeatedChars → text;/)
    expect(line).toMatch(/maxThinkingSteps, minReasoningChars, similarityThreshold, callJudgeWindowChars, restatementTailChars, maxRepeatedSteps, maxAlternatingSteps, maxStepCycleLength → steps;/)
    expect(line).toMatch(/cropAfter, cropMaxSteps → crop;/)
    for (const name of retired) expect(line, name).toMatch(new RegExp(`\\b${name}\\b`))
    expect(retiredSettingsLine({ escalate: 'warn', reasoning: 'off' })).toBeUndefined()
    // A threshold that never was a plugin setting is no setting, as any other unknown name.
    expect(() => cordisValidates({ valuesMinSpan: 2048 })).toThrow('loop-breaker: valuesMinSpan is not a setting')
  })

  it('prints the line once at start-up, and the plugin runs with the config', async () => {
    const lines: string[] = []
    const host = await createGuardedHost(() => textAnswer('done'), { textCycleMinSpan: 512, maxFires: 2 } as any, { internals: { writeLine: (line) => lines.push(line) } })
    const agent = host.createAgent()
    await host.ask(agent, 'hello')
    expect(lines.filter((line) => line.includes('of an earlier version'))).toEqual([expect.stringContaining('textCycleMinSpan → text')])
    await host.dispose()
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
    ['unknown key, a typo', { reasonnig: 'off' }, `loop-breaker: reasonnig is not a setting, did you mean reasoning? (got reasonnig: "off")`],
    ['unknown key, wrong case', { maxfires: 3 }, 'loop-breaker: maxfires is not a setting, did you mean maxFires? (got maxfires: 3)'],
    ['unknown key, nothing close', { colour: 'red' }, `loop-breaker: colour is not a setting, the README's Config table lists every setting (got colour: "red")`],
    ['bad enum', { escalate: 'explode' }, `loop-breaker: escalate must be 'warn', 'steer' or 'cancel' (got "explode")`],
    ['bad side guard', { text: 'exact' }, `loop-breaker: text must be 'full', 'verbatim' or 'off' (got "exact")`],
    ['a side guard as a boolean', { tool: false }, `loop-breaker: tool must be 'full', 'verbatim' or 'off' (got false)`],
    ['wrong type, boolean', { trimHistory: 'yes' }, 'loop-breaker: trimHistory must be true or false (got "yes")'],
    ['steps as a word', { steps: 'off' }, 'loop-breaker: steps must be true or false (got "off")'],
    ['negative continuation cap', { maxContinuations: -1 }, 'loop-breaker: maxContinuations must be an integer >= 0 (got -1)'],
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

  it('fails loud at load, naming the field and the value', async () => {
    await expect(createGuardedHost(() => textAnswer('x'), { maxFires: 0 })).rejects.toThrow('loop-breaker: maxFires must be an integer >= 1 (got 0)')
    await expect(createGuardedHost(() => textAnswer('x'), { cycleMinSpan: 10 } as any)).rejects.toThrow('loop-breaker: cycleMinSpan is not a setting')
    await expect(createGuardedHost(() => textAnswer('x'), { reasoning: 'verbose' } as any)).rejects.toThrow(`loop-breaker: reasoning must be 'full', 'verbatim' or 'off'`)
  })
})
