import { describe, expect, it } from 'vitest'
import { StepJudge, stepSignature, type StepObservation } from '../../src/detector/index.ts'
import { changingPoll, ciPolls, commandWithChangingFlag, fixTestWorkflow, indentationFix, numberedReads, paginatedListing, retriedEdit, stepCycle, testAfterEachEdit } from '../fixtures/detector/step-shapes.mjs'

const read = (path: string, text = 'Let me check the file.') => ({ text, toolCalls: [{ name: 'read', arguments: JSON.stringify({ path, limit: 200 }) }] })
const verdicts = (steps: StepObservation[], judge = new StepJudge()) => steps.map((step) => judge.observe(step))
const firstVerdict = (steps: StepObservation[]) => {
  const all = verdicts(steps)
  const at = all.findIndex((verdict) => verdict !== undefined)
  return at < 0 ? undefined : { verdict: all[at], at }
}
const LANGUAGES = ['en', 'zh'] as const
const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8]
const bash = (command: string) => ({ text: '', toolCalls: [{ name: 'bash', arguments: JSON.stringify({ command }) }] })
/** `times` steps of one bash command, each bringing back `result` for the step before. */
const polls = (result: string, times = 5, command = 'ci status') => Array.from({ length: times }, (_, i) => (i === 0 ? bash(command) : { ...bash(command), previousResults: [result] }))
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

  it.each([2, 3, 4])('reports a cycle of %i steps after two full cycles (and at least maxAlternatingSteps steps), in English and Chinese', (length) => {
    for (const language of LANGUAGES) {
      for (const seed of SEEDS) {
        const steps = stepCycle({ seed, language, length, repeats: 3 })
        const expected = { verdict: length === 2 ? 'alternating-steps' : 'step-cycle', at: Math.max(6, 2 * length) - 1 }
        expect(firstVerdict(steps), `${language} seed ${seed}`).toEqual(expected)
        // The same without the tool results (an older caller): the exact cycle is evidence enough.
        expect(firstVerdict(withoutResults(steps)), `${language} seed ${seed}, no results`).toEqual(expected)
      }
    }
  })

  it('does not look for cycles longer than maxStepCycleLength, and 0 alternating steps turns cycles off', () => {
    expect(verdicts(stepCycle({ length: 4, repeats: 3 }), new StepJudge({ maxStepCycleLength: 3 })).every((v) => v === undefined)).toBe(true)
    expect(verdicts(stepCycle({ length: 3, repeats: 4 }), new StepJudge({ maxAlternatingSteps: 0 })).every((v) => v === undefined)).toBe(true)
  })

  it('reports the same failing edit retried with a reworded preface, its spacing or a retry counter changed, in English and Chinese', () => {
    for (const language of LANGUAGES) {
      for (const vary of ['none', 'whitespace', 'counter'] as const) {
        for (const seed of SEEDS) expect(firstVerdict(retriedEdit({ seed, language, vary })), `${language} ${vary} ${seed}`).toEqual({ verdict: 'repeated-step', at: 2 })
      }
    }
  })

  it('never reports the edit that fixes its indentation after failing on it, Python or YAML; the same edit failing a third time as it was is reported', () => {
    for (const language of LANGUAGES) {
      for (const seed of SEEDS) {
        expect(firstVerdict(indentationFix({ seed, language })), `${language} ${seed}`).toBeUndefined()
        // The control: three attempts at the same depth are the same step, whatever else their spacing does.
        expect(firstVerdict(indentationFix({ seed, language, failures: 3 })), `${language} ${seed}, three failures`).toEqual({ verdict: 'repeated-step', at: 2 })
      }
    }
  })

  it('reports the same command with a harmless changing flag, count, seed, timestamp or temp path once its output stays the same', () => {
    for (const language of LANGUAGES) {
      for (const seed of SEEDS) {
        // Masked arguments are only evidence with the results: the first two came back the same.
        expect(firstVerdict(commandWithChangingFlag({ seed, language })), `${language} ${seed}`).toEqual({ verdict: 'repeated-step', at: 2 })
        expect(firstVerdict(withoutResults(commandWithChangingFlag({ seed, language }))), `${language} ${seed}, no results`).toBeUndefined()
      }
    }
  })

  it('never reports a legitimate wait: polls of a job the tool says is still running, queued or pending, in English and Chinese', () => {
    for (const language of LANGUAGES) {
      for (const seed of SEEDS) {
        expect(firstVerdict(ciPolls({ seed, language, times: 8 })), `${language} ${seed}`).toBeUndefined()
        expect(firstVerdict(ciPolls({ seed, language, times: 3, finishes: true })), `${language} ${seed} finishing`).toBeUndefined()
      }
    }
  })

  it('never reports a poll whose answer changes, reads of file1, file2, file3, tests after each real edit, a paginated listing, or a fix-test workflow', () => {
    for (const language of LANGUAGES) {
      for (const seed of SEEDS) {
        const label = `${language} ${seed}`
        expect(firstVerdict(changingPoll({ seed, language, times: 8 })), label).toBeUndefined()
        expect(firstVerdict(numberedReads({ seed, language, times: 8 })), label).toBeUndefined()
        // Numbered files that happen to read the same are still different files.
        expect(firstVerdict(numberedReads({ seed, language, times: 8, alike: true })), `${label} alike`).toBeUndefined()
        expect(firstVerdict(testAfterEachEdit({ seed, language, rounds: 6 })), label).toBeUndefined()
        expect(firstVerdict(paginatedListing({ seed, language, pages: 8 })), label).toBeUndefined()
        // Pages whose entries differ only in long ids read the same once masked; the next cursor shows the listing moves on.
        expect(firstVerdict(paginatedListing({ seed, language, pages: 8, alike: true })), `${label} alike`).toBeUndefined()
        expect(firstVerdict(fixTestWorkflow({ seed, rounds: 4 })), label).toBeUndefined()
      }
    }
  })

  it('reads a status word as a wait only as a field\'s whole value, so a stuck test run whose output says "running 3 tests" or "Pending:" is still reported', () => {
    const waits = [
      'pending', 'Status: Pending', 'build\tpending\t42s', '{"status":"queued"}', 'state=running', '| deploy | running |',
      'NAME        READY   STATUS    RESTARTS   AGE\napi-5d8f    0/1     Pending   0          5s',
      'The job is still running.', 'The build is running (3 of 7 jobs done).', 'Waiting for deployment "api" rollout to finish',
      '流水线状态：运行中', '构建排队中', '任务仍在运行', '状态：等待中', '正在执行第 3 步', '部署尚未完成',
    ]
    for (const result of waits) expect(firstVerdict(polls(result)), result).toBeUndefined()
    const stuck = [
      'running 3 tests\ntest a ... ok\ntest b ... FAILED\ntest result: FAILED. 2 passed; 1 failed',
      "Pending: (Failures listed here are expected and do not affect your suite's status)\n\nFailures:\n  1) Foo fails\n\n3 examples, 1 failure, 1 pending",
      'Tests:       1 failed, 1 pending, 2 passed, 4 total',
      'Error: running the migration failed: relation "users" already exists',
      'Starting a Gradle Daemon (subsequent builds will be faster)\n\nFAILURE: Build failed with an exception.',
      'interactive rebase in progress; onto 1a2b3c4\nYou are currently editing a commit',
      'error: timed out waiting for the condition',
    ]
    for (const result of stuck) expect(firstVerdict(polls(result)), result).toEqual({ verdict: 'repeated-step', at: 2 })
  })

  it('takes no masked repeat on empty results: mkdir -p out/1, out/2, out/3 says nothing about progress', () => {
    const steps = [1, 2, 3, 4, 5].map((n, i) => (i === 0 ? bash(`mkdir -p out ${n}`) : { ...bash(`mkdir -p out ${n}`), previousResults: [''] }))
    expect(firstVerdict(steps)).toBeUndefined()
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
