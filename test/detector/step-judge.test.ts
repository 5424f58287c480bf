import { describe, expect, it } from 'vitest'
import { StepJudge, stepSignature, type StepObservation } from '../../src/detector/index.ts'
import { changingPoll, ciPolls, commandWithChangingFlag, fixTestWorkflow, numberedReads, retriedEdit, stepCycle } from '../fixtures/detector/step-shapes.mjs'

const read = (path: string, text = 'Let me check the file.') => ({ text, toolCalls: [{ name: 'read', arguments: JSON.stringify({ path, limit: 200 }) }] })
const verdicts = (steps: StepObservation[], judge = new StepJudge()) => steps.map((step) => judge.observe(step))
const firstVerdict = (steps: StepObservation[]) => {
  const all = verdicts(steps)
  const at = all.findIndex((verdict) => verdict !== undefined)
  return at < 0 ? undefined : { verdict: all[at], at }
}
const withoutResults = (steps: StepObservation[]) => steps.map(({ text, toolCalls }) => ({ text, toolCalls }))

describe('StepJudge', () => {
  it('reports the same normalised step repeated maxRepeatedSteps times in a row', () => {
    const judge = new StepJudge()
    expect(judge.observe(read('src/a.ts'))).toBeUndefined()
    // Filler openings, case and spacing differ; arguments arrive parsed, keys in another order.
    expect(judge.observe({ text: "  I'll   CHECK the file. ", toolCalls: [{ name: 'read', arguments: { limit: 200, path: 'src/a.ts' } }] })).toBeUndefined()
    expect(judge.observe({ text: 'let me check the file.', toolCalls: [{ name: 'read', arguments: '{"path":"src/a.ts","limit":200}' }] })).toBe('repeated-step')
  })

  it('treats different arguments as different steps', () => {
    const judge = new StepJudge()
    for (const path of ['a.ts', 'b.ts', 'c.ts', 'd.ts']) expect(judge.observe(read(path))).toBeUndefined()
  })

  it('reports A-B-A-B-A-B alternation', () => {
    const a = read('src/a.ts')
    const b = { text: 'Run the tests.', toolCalls: [{ name: 'bash', arguments: { command: 'npm test' } }] }
    expect(verdicts([a, b, a, b, a, b])).toEqual([undefined, undefined, undefined, undefined, undefined, 'alternating-steps'])
  })

  it('ignores steps with neither text nor tool calls, and restarts after a report', () => {
    const steps = [read('x'), { text: '  ', toolCalls: [] }, read('x'), read('x'), read('x'), read('x'), read('x')]
    expect(verdicts(steps)).toEqual([undefined, undefined, undefined, 'repeated-step', undefined, undefined, 'repeated-step'])
  })

  it('identifies a step by its tool calls, or by the first 200 significant chars of its text when it makes none', () => {
    const long = 'I will now re-read the configuration and compare every option with the documentation. '.repeat(4)
    expect(stepSignature({ text: long + 'attempt 1', toolCalls: [] })).toBe(stepSignature({ text: long + 'attempt 2', toolCalls: [] }))
    expect(stepSignature(read('a', 'Reading it.'))).toBe(stepSignature(read('a', 'Once more, reading it.')))
    expect(stepSignature({ text: 'x', toolCalls: [{ name: 'write', arguments: '{"path": "a", "content": "b"' }] })).toContain('write({"path": "a", "content": "b")')
  })

  it.each([2, 3, 4])('reports a cycle of %i steps after two full cycles (and at least maxAlternatingSteps steps)', (length) => {
    for (const seed of [1, 2, 3, 4]) {
      const steps = stepCycle({ seed, length, repeats: 3 })
      const expected = { verdict: length === 2 ? 'alternating-steps' : 'step-cycle', at: Math.max(6, 2 * length) - 1 }
      expect(firstVerdict(steps), `seed ${seed}`).toEqual(expected)
      // The same without the tool results (an older caller): the exact cycle is evidence enough.
      expect(firstVerdict(withoutResults(steps)), `seed ${seed}, no results`).toEqual(expected)
    }
  })

  it('does not look for cycles longer than maxStepCycleLength, and 0 alternating steps turns cycles off', () => {
    expect(verdicts(stepCycle({ length: 4, repeats: 3 }), new StepJudge({ maxStepCycleLength: 3 })).every((v) => v === undefined)).toBe(true)
    expect(verdicts(stepCycle({ length: 3, repeats: 4 }), new StepJudge({ maxAlternatingSteps: 0 })).every((v) => v === undefined)).toBe(true)
  })

  it('reports the same failing edit retried with a reworded preface, in English and Chinese', () => {
    for (const language of ['en', 'zh'] as const) {
      for (const seed of [1, 2, 3]) expect(firstVerdict(retriedEdit({ seed, language })), `${language} ${seed}`).toEqual({ verdict: 'repeated-step', at: 2 })
    }
  })

  it('reports the same command with a harmless changing flag, number or cache-buster once its output stays the same', () => {
    for (const seed of [0, 1, 2, 3]) {
      // Masked arguments are only evidence with the results: the first two came back the same.
      expect(firstVerdict(commandWithChangingFlag({ seed })), `seed ${seed}`).toEqual({ verdict: 'repeated-step', at: 2 })
      expect(firstVerdict(withoutResults(commandWithChangingFlag({ seed }))), `seed ${seed}, no results`).toBeUndefined()
    }
  })

  it('never reports a legitimate wait: polls of a job the tool says is still running', () => {
    for (const language of ['en', 'zh'] as const) {
      for (const seed of [0, 1, 2]) {
        expect(firstVerdict(ciPolls({ seed, language, times: 8 })), `${language} ${seed}`).toBeUndefined()
        expect(firstVerdict(ciPolls({ seed, language, times: 3, finishes: true })), `${language} ${seed} finishing`).toBeUndefined()
      }
    }
  })

  it('never reports a poll whose answer changes, numbered reads with different contents, or a fix-test workflow', () => {
    for (const seed of [1, 2, 3]) {
      expect(firstVerdict(changingPoll({ seed, times: 8 }))).toBeUndefined()
      expect(firstVerdict(numberedReads({ seed, times: 8 }))).toBeUndefined()
      expect(firstVerdict(fixTestWorkflow({ seed, rounds: 4 }))).toBeUndefined()
    }
  })

  it('still reports a poll whose answer never changes and never says it is running', () => {
    const stuck = changingPoll({ times: 4 }).map((step, i) => (i === 0 ? step : { ...step, previousResults: ['imported 1250 of 10000 rows'] }))
    expect(firstVerdict(stuck)).toEqual({ verdict: 'repeated-step', at: 2 })
  })

  it('is switched off by 0', () => {
    const judge = new StepJudge({ maxRepeatedSteps: 0, maxAlternatingSteps: 0 })
    for (let i = 0; i < 8; i++) expect(judge.observe(read('same'))).toBeUndefined()
  })
})
