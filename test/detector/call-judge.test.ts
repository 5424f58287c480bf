import { describe, expect, it } from 'vitest'
import { CallJudge, DEFAULT_CONFIG } from '../../src/detector/index.ts'
import { loadCorpus } from '../fixtures/detector/corpus.mjs'
import { SEED_POOL_EN, reshuffled } from '../fixtures/detector/loops.mjs'

// Fresh material for each call: the opening 3,000 chars of different real READMEs (different
// subjects, the same language, so shared 4-grams are only the ordinary ones of English).
const readmes = loadCorpus()
  .filter((document) => document.file.endsWith('README.md') && document.part === 0 && document.text.length > 3000)
  .map((document) => document.text.slice(0, 3000))
const fresh = (n: number) => readmes[n]
const long = DEFAULT_CONFIG.minReasoningChars

describe('CallJudge', () => {
  it('reports reasoning-only after maxThinkingSteps long calls without output, and not before', () => {
    const judge = new CallJudge()
    expect(fresh(0).length).toBeGreaterThanOrEqual(long)
    expect(judge.observe({ reasoning: fresh(1), hasOutput: false })).toBeUndefined()
    expect(judge.observe({ reasoning: fresh(2), hasOutput: false })).toBeUndefined()
    expect(judge.observe({ reasoning: fresh(3), hasOutput: false })).toBe('reasoning-only')
  })

  it('restarts the count after a report, so a stubborn stall is reported again after another N', () => {
    const judge = new CallJudge()
    const verdicts = Array.from({ length: 6 }, (_, i) => judge.observe({ reasoning: fresh(i), hasOutput: false }))
    expect(verdicts).toEqual([undefined, undefined, 'reasoning-only', undefined, undefined, 'reasoning-only'])
  })

  it('lets short calls neither count nor reset', () => {
    const judge = new CallJudge()
    expect(judge.observe({ reasoning: fresh(1), hasOutput: false })).toBeUndefined()
    expect(judge.observe({ reasoning: 'OK, next.', hasOutput: true })).toBeUndefined()
    expect(judge.observe({ reasoning: fresh(2), hasOutput: false })).toBeUndefined()
    expect(judge.observe({ reasoning: '', hasOutput: false })).toBeUndefined()
    expect(judge.observe({ reasoning: fresh(3), hasOutput: false })).toBe('reasoning-only')
  })

  it('resets on a long call with fresh reasoning and output', () => {
    const judge = new CallJudge()
    judge.observe({ reasoning: fresh(1), hasOutput: false })
    judge.observe({ reasoning: fresh(2), hasOutput: false })
    expect(judge.observe({ reasoning: fresh(3), hasOutput: true })).toBeUndefined()
    expect(judge.observe({ reasoning: fresh(4), hasOutput: false })).toBeUndefined()
    expect(judge.observe({ reasoning: fresh(5), hasOutput: false })).toBeUndefined()
  })

  it('reports repeated-material when calls with output restate the previous call', () => {
    const restated = (n: number) => reshuffled(SEED_POOL_EN, '\n', long + 500, n)
    const judge = new CallJudge()
    expect(judge.observe({ reasoning: restated(1), hasOutput: true })).toBeUndefined()
    expect(judge.observe({ reasoning: restated(2), hasOutput: true })).toBeUndefined()
    expect(judge.observe({ reasoning: restated(3), hasOutput: true })).toBeUndefined()
    expect(judge.observe({ reasoning: restated(4), hasOutput: true })).toBe('repeated-material')
  })

  it('treats fresh reasoning with output as progress, whatever its length', () => {
    const judge = new CallJudge()
    for (let i = 0; i < 8; i++) expect(judge.observe({ reasoning: fresh(i), hasOutput: true })).toBeUndefined()
  })

  it('is switched off by maxThinkingSteps 0; restatement alone by similarityThreshold 0', () => {
    const off = new CallJudge({ maxThinkingSteps: 0 })
    for (let i = 0; i < 6; i++) expect(off.observe({ reasoning: fresh(i), hasOutput: false })).toBeUndefined()
    const noRestatement = new CallJudge({ similarityThreshold: 0 })
    const same = reshuffled(SEED_POOL_EN, '\n', long + 500, 1)
    for (let i = 0; i < 6; i++) expect(noRestatement.observe({ reasoning: same, hasOutput: true })).toBeUndefined()
  })
})
