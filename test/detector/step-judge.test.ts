import { describe, expect, it } from 'vitest'
import { StepJudge, stepSignature } from '../../src/detector/index.ts'

const read = (path: string, text = 'Let me check the file.') => ({ text, toolCalls: [{ name: 'read', arguments: JSON.stringify({ path, limit: 200 }) }] })

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
    const judge = new StepJudge()
    const a = read('src/a.ts')
    const b = { text: 'Run the tests.', toolCalls: [{ name: 'bash', arguments: { command: 'npm test' } }] }
    const verdicts = [a, b, a, b, a, b].map((step) => judge.observe(step))
    expect(verdicts).toEqual([undefined, undefined, undefined, undefined, undefined, 'alternating-steps'])
  })

  it('ignores steps with neither text nor tool calls, and restarts after a report', () => {
    const judge = new StepJudge()
    const verdicts = [read('x'), { text: '  ', toolCalls: [] }, read('x'), read('x'), read('x'), read('x'), read('x')].map((step) => judge.observe(step))
    expect(verdicts).toEqual([undefined, undefined, undefined, 'repeated-step', undefined, undefined, 'repeated-step'])
  })

  it('keeps only the first 200 significant chars of text, so an appended counter does not hide a repeat', () => {
    const long = 'I will now re-read the configuration and compare every option with the documentation. '.repeat(4)
    expect(stepSignature({ text: long + 'attempt 1', toolCalls: [] })).toBe(stepSignature({ text: long + 'attempt 2', toolCalls: [] }))
    expect(stepSignature({ text: 'x', toolCalls: [{ name: 'write', arguments: '{"path": "a", "content": "b"' }] })).toContain('write({"path": "a", "content": "b")')
  })

  it('is switched off by 0', () => {
    const judge = new StepJudge({ maxRepeatedSteps: 0, maxAlternatingSteps: 0 })
    for (let i = 0; i < 8; i++) expect(judge.observe(read('same'))).toBeUndefined()
  })
})
