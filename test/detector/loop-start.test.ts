import { describe, expect, it } from 'vitest'
import { StreamDetector, type Side } from '../../src/detector/index.ts'
import { PROSE_EN, PROSE_ZH, SEED_PERIODS_REASONING, drawnPool, drifting, periodic, productiveProse, sentencePool } from '../fixtures/detector/loops.mjs'
import { feedAfter } from './feed.ts'

// Trip.loopStart after a productive prefix of length P: where the repeated stretch begins, within one
// period (cycle, token-period: one copy of the repeated material stays before it), one delta
// (identical-chunks) or one unit (phrase-pool: its first unit), never thousands of chars late.
const PREFIX_CHARS = 20_000
const sides: Side[] = ['reasoning', 'text']
// A short period is also a token block repeated: the token-period rule may claim it first.
const cycleOnly = { tokenPeriodMinRepeats: 0, reasoningPoolMinRepeatedChars: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0, letterCycleMinSpan: 0 }

describe('loopStart after a 20,000-char productive prefix', () => {
  for (const language of ['en', 'zh'] as const) {
    const prefix = productiveProse(PREFIX_CHARS, language)
    const source = language === 'zh' ? PROSE_ZH : PROSE_EN
    for (const side of sides) {
      it(`cycle (${language}, ${side}): within one period of the loop's start, for periods 17–1,000`, () => {
        for (const period of [17, ...SEED_PERIODS_REASONING, 1000].filter((p) => p < source.length)) {
          const { trip } = feedAfter(prefix, periodic(period, 8000, source, 3), side, { config: cycleOnly })
          expect(trip?.rule, `period ${period}`).toBe('cycle')
          expect(trip!.loopStart - prefix.length, `period ${period}`).toBeGreaterThanOrEqual(0)
          expect(trip!.loopStart - prefix.length, `period ${period}`).toBeLessThanOrEqual(period)
        }
      })

      it(`token-period (${language}, ${side}): within one block of the loop's start, with drifting spacing and case`, () => {
        const phrase = language === 'zh' ? '我再 检查 一下 这个 文件。' : 'let me check the file again.'
        const loop = drifting(phrase, 40)
        const { trip } = feedAfter(prefix, loop, side, { config: { reasoningPoolMinRepeatedChars: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 } })
        expect(trip?.rule).toBe('token-period')
        const block = loop.length / 40
        expect(trip!.loopStart - prefix.length).toBeGreaterThanOrEqual(0)
        expect(trip!.loopStart - prefix.length).toBeLessThanOrEqual(block + 2)
      })

      it(`phrase-pool (${language}, ${side}): the pool's first unit`, () => {
        for (const length of [8, 52]) {
          const { trip } = feedAfter(prefix, drawnPool(sentencePool(5, length, language), '\n', 8000), side,
            { config: { reasoningCycleMaxPeriod: 0, textCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 } })
          expect(trip?.rule).toBe('phrase-pool')
          expect(trip!.loopStart).toBe(prefix.length)
        }
      })
    }
  }

  it('identical-chunks: one delta after the loop\'s start (one copy stays)', () => {
    const prefix = productiveProse(PREFIX_CHARS, 'en')
    const detector = new StreamDetector({ textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, tokenPeriodMinRepeats: 0 })
    for (let at = 0; at < prefix.length; at += 7) detector.push('text', prefix.slice(at, at + 7))
    let trip
    for (let i = 0; !trip && i < 1000; i++) trip = detector.push('text', 'Go on. ')
    expect(trip?.rule).toBe('identical-chunks')
    expect(trip!.loopStart).toBe(prefix.length + 'Go on. '.length)
  })

  it('phrase-pool: a loose lead-in narrowing to a pool starts the stretch where the ratios begin to hold', () => {
    const prefix = productiveProse(PREFIX_CHARS, 'en')
    // 16 sentences reshuffled are too many to reach concentration 4 inside 32 units; the loop then
    // narrows to 4 of them. The rule vouches for the stretch its ratios hold on: from the narrowing.
    const sentences = sentencePool(16, 52, 'en')
    const loose = drawnPool(sentences, '\n', 4000)
    const { trip } = feedAfter(prefix + loose, drawnPool(sentences.slice(0, 4), '\n', 8000), 'text',
      { config: { textCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, maxIdenticalChunks: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 } })
    expect(trip?.rule).toBe('phrase-pool')
    expect(trip!.loopStart).toBe(prefix.length + loose.length)
  })
})
