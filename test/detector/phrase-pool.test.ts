import { describe, expect, it } from 'vitest'
import { PROSE_EN, PROSE_ZH, SEED_POOL_EN, SEED_POOL_ZH, WIDE_POOL_EN, reshuffled } from '../fixtures/detector/loops.mjs'
import { feed, feedAfter } from './feed.ts'

// A long productive prefix first: the ratios look at a recent window, so it cannot dilute the pool.
const longPrefix = (PROSE_EN + '\n').repeat(1) + PROSE_ZH + '\n' + PROSE_EN.split('. ').reverse().join('. ') + '\n'
// Other rules stay out of the way, so each case shows what the phrase-pool rule does on its own.
const poolOnly = { reasoningCycleMaxPeriod: 0, textCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, maxIdenticalChunks: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }

describe('phrase pool', () => {
  it.each([
    ['English, one phrase per line', SEED_POOL_EN, '\n', 'reasoning'],
    ['English, one long line', SEED_POOL_EN, ' ', 'reasoning'],
    ['English, one long line, visible text', SEED_POOL_EN, ' ', 'text'],
    ['Chinese, one phrase per line', SEED_POOL_ZH, '\n', 'text'],
    ['Chinese, one long line without spaces', SEED_POOL_ZH, '', 'text'],
    ['Chinese, one long line, reasoning', SEED_POOL_ZH, '', 'reasoning'],
    ['a 26-phrase vocabulary (the seed\'s visible-text loop)', WIDE_POOL_EN, ' ', 'text'],
  ] as const)('cuts a reshuffled pool (%s) within ~1,100 chars after a long prefix', (_name, pool, separator, side) => {
    const { trip, latency } = feedAfter(longPrefix, reshuffled(pool, separator, 40_000), side, { config: poolOnly })
    expect(trip).toMatchObject({ rule: 'phrase-pool', side })
    expect(latency).toBeLessThanOrEqual(1150)
    expect(trip!.loopStart).toBeGreaterThanOrEqual(longPrefix.length)
    expect(trip!.repeatedChars).toBeGreaterThanOrEqual(512)
  })

  it('has no period for the cycle rule to find, so it is the rule that catches this shape', () => {
    const pool = reshuffled(SEED_POOL_EN, '\n', 40_000)
    expect(feed(pool, 'reasoning', { config: { reasoningPoolMinRepeatedChars: 0, tokenPeriodMinRepeats: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 } })).toBeUndefined()
    const byPool = feed(pool, 'reasoning')
    expect(byPool?.rule).toBe('phrase-pool')
  })

  it('lets a code block quoted two and three times through (every line seen ~2–3 times)', () => {
    const block = PROSE_EN.split('. ').slice(0, 12).join('.\n') + '\n'
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(`Before:\n${block}After:\n${block}Again, unchanged:\n${block}${PROSE_ZH}`, side, { config: poolOnly })).toBeUndefined()
    }
  })

  it('does not count syntax-only units: a wall of braces and dividers is not a pool', () => {
    const syntax = ('}\n});\n},\n]\n|---|---|\n*/\n').repeat(300)
    expect(feed(syntax, 'text', { config: poolOnly })).toBeUndefined()
  })

  it('is switched off per side by a repeated-mass threshold of 0', () => {
    const pool = reshuffled(SEED_POOL_EN, '\n', 20_000)
    expect(feed(pool, 'text', { config: { ...poolOnly, textPoolMinRepeatedChars: 0 } })).toBeUndefined()
    expect(feed(pool, 'reasoning', { config: { ...poolOnly, textPoolMinRepeatedChars: 0 } })?.rule).toBe('phrase-pool')
  })
})
