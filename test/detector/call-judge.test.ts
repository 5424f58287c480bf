import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CallJudge, DEFAULT_CONFIG } from '../../src/detector/index.ts'
import { loadCorpus } from '../fixtures/detector/corpus.mjs'
import { SEED_POOL_EN, reshuffled } from '../fixtures/detector/loops.mjs'
import { longPoolLoop } from '../fixtures/detector/shapes.mjs'

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

  it('measures restatement on the last callJudgeWindowChars chars of each call', () => {
    const window = DEFAULT_CONFIG.callJudgeWindowChars
    const restated = (n: number) => reshuffled(SEED_POOL_EN, '\n', window, n)
    // Fresh material longer than the window, then a restatement of the previous call: judged on its tail.
    const freshThenRestated = (n: number) => `${readmes.slice(7 * n, 7 * n + 7).join('\n')}\n${restated(n)}`
    expect(freshThenRestated(0).length).toBeGreaterThan(2 * window)
    const judge = new CallJudge()
    const verdicts = [0, 1, 2, 3].map((n) => judge.observe({ reasoning: freshThenRestated(n), hasOutput: true }))
    expect(verdicts).toEqual([undefined, undefined, undefined, 'repeated-material'])
    // The same calls compared whole are not restatements: the fresh material outweighs the pool.
    const whole = new CallJudge({ callJudgeWindowChars: 1048576 })
    for (let n = 0; n < 4; n++) expect(whole.observe({ reasoning: freshThenRestated(n), hasOutput: true })).toBeUndefined()
  })

  it('gives the same verdicts on a tail with the full length as on the whole reasoning', () => {
    const window = 4096
    // Pool-tailed calls restate each other on their tails; the fresh call in the middle resets the count.
    const calls = Array.from({ length: 8 }, (_, n) => n === 4
      ? { reasoning: readmes.slice(10, 14).join('\n'), hasOutput: true }
      : { reasoning: `${readmes[n]}\n${reshuffled(SEED_POOL_EN, '\n', window + 1000, n)}`, hasOutput: n % 2 === 0 })
    const onWhole = new CallJudge({ callJudgeWindowChars: window })
    const onTail = new CallJudge({ callJudgeWindowChars: window })
    const verdicts = calls.map((call) => onWhole.observe(call))
    expect(verdicts.some((verdict) => verdict !== undefined)).toBe(true)
    expect(calls.map(({ reasoning, hasOutput }) =>
      onTail.observe({ reasoning: reasoning.slice(-window), reasoningLength: reasoning.length, hasOutput }))).toEqual(verdicts)
  })

  it('counts minReasoningChars on the whole reasoning length, not on the tail it is given', () => {
    const tail = (n: number) => fresh(n).slice(0, 100)
    const counted = new CallJudge()
    expect([0, 1, 2].map((n) => counted.observe({ reasoning: tail(n), reasoningLength: long, hasOutput: false })))
      .toEqual([undefined, undefined, 'reasoning-only'])
    const short = new CallJudge()
    for (let n = 0; n < 4; n++) expect(short.observe({ reasoning: tail(n), reasoningLength: long - 1, hasOutput: false })).toBeUndefined()
  })

  it('treats restated material with new work after it as progress, in English and Chinese', () => {
    for (const language of ['en', 'zh'] as const) {
      // Each call recaps the same plan (the same long sentences, reshuffled) and then does new work.
      const recap = (n: number) => longPoolLoop({ seed: 5, language, prefixChars: 0, loopChars: 6000 }).text.slice(0, 4000 + 97 * n)
      const judge = new CallJudge()
      for (let n = 0; n < 6; n++) {
        expect(judge.observe({ reasoning: `${recap(n)}\n${fresh(n)}`, hasOutput: true }), `${language} call ${n}`).toBeUndefined()
      }
      // Without the new work the same recaps are restatements.
      const stalled = new CallJudge()
      const verdicts = [0, 1, 2, 3].map((n) => stalled.observe({ reasoning: recap(n), hasOutput: true }))
      expect(verdicts, language).toEqual([undefined, undefined, undefined, 'repeated-material'])
    }
  })

  it('judges the tail on the reasoning it is given, so a tail with the full length agrees with the whole', () => {
    const window = DEFAULT_CONFIG.callJudgeWindowChars
    const recap = longPoolLoop({ seed: 8, prefixChars: 0, loopChars: window + 4000 }).text
    const calls = [0, 1, 2, 3, 4].map((n) => (n % 2 === 0 ? `${recap}\n${fresh(n)}` : recap))
    const whole = new CallJudge()
    const tail = new CallJudge()
    expect(calls.map((reasoning) => tail.observe({ reasoning: reasoning.slice(-window), reasoningLength: reasoning.length, hasOutput: true })))
      .toEqual(calls.map((reasoning) => whole.observe({ reasoning, hasOutput: true })))
  })

  it('treats a realistic recap of the plan followed by new reasoning as progress, and the recap alone as a stall, in English and Chinese', () => {
    const sentences = (text: string) => text.split(/(?<=[.!?。！？])\s*/).filter(Boolean)
    const shuffle = <T>(list: T[], seed: number) => {
      const copy = [...list]
      let state = seed + 1
      for (let i = copy.length - 1; i > 0; i--) {
        state = (state * 1103515245 + 12345) % 2147483648
        const j = state % (i + 1)
        ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
      }
      return copy
    }
    for (const language of ['en', 'zh'] as const) {
      const gap = language === 'zh' ? '' : ' '
      // The plan: a real agent's plan (prose-*.txt), its sentences in another order each call.
      const prose = sentences(readFileSync(`test/fixtures/detector/prose-${language}.txt`, 'utf8'))
      const plan = (n: number) => {
        let text = ''
        for (let round = 0; text.length < 2400; round++) text += shuffle(prose, 7 * n + round).join(gap) + gap
        return text
      }
      // New work: running technical prose in the same language (the project's own docs), a different stretch each call.
      const docs = ['detector', 'config', 'retry', 'tools'].map((name) => readFileSync(`docs/${name}${language === 'zh' ? '.zh' : ''}.md`, 'utf8')).join('\n')
        .replace(/^[#|].*$/gm, '').replace(/`[^`]*`/g, '').replace(/\s+/g, gap)
      const work = (n: number) => docs.slice(1500 * n, 1500 * n + 800)
      const progress = new CallJudge()
      for (let n = 0; n < 6; n++) expect(progress.observe({ reasoning: `${plan(n)}\n${work(n)}`, hasOutput: true }), `${language} call ${n}`).toBeUndefined()
      const stalled = new CallJudge()
      expect([0, 1, 2, 3].map((n) => stalled.observe({ reasoning: plan(n), hasOutput: true })), language).toEqual([undefined, undefined, undefined, 'repeated-material'])
    }
  })
})
