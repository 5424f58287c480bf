import { describe, expect, it } from 'vitest'
import { PROSE_EN, PROSE_ZH, drifting } from '../fixtures/detector/loops.mjs'
import { DEFAULT_CONFIG } from '../../src/detector/index.ts'
import { feed, feedAfter } from './feed.ts'

describe('token period', () => {
  it('cuts "let me check the file" said 20 times with drifting spacing and capitals (no exact period)', () => {
    const loop = drifting('let me check the file again.', 20)
    expect(feed(loop, 'reasoning', { config: { tokenPeriodMinRepeats: 0, reasoningPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 } })).toBeUndefined()
    const { trip } = feedAfter(PROSE_EN, loop, 'reasoning')
    expect(trip?.rule).toBe('token-period')
    expect(trip!.loopStart).toBeGreaterThan(PROSE_EN.length)
  })

  it('cuts "我再检查一下这个文件。" said 20 times (each CJK character one token)', () => {
    const { trip, latency } = feedAfter(PROSE_ZH, '我再检查一下这个文件。'.repeat(20), 'reasoning')
    expect(trip?.rule).toBe('token-period')
    expect(latency).toBeLessThanOrEqual(11 * 16 + 32 + 16)
  })

  it('lets a short repetition through: 15 repeats is a list, 16 a loop', () => {
    const only = { reasoningCycleMaxPeriod: 0, reasoningPoolMinRepeatedChars: 0 }
    expect(feed('Let me check the file.\n'.repeat(15) + PROSE_EN, 'reasoning', { config: only })).toBeUndefined()
    expect(feed('Let me check the file.\n'.repeat(16) + PROSE_EN, 'reasoning', { config: only })?.rule).toBe('token-period')
  })

  it('lets laughter, table dividers and two values or cells alternating through (fewer than 3 distinct tokens, not all words)', () => {
    const only = { textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, maxIdenticalChunks: 0, symbolRunMinChars: 0 }
    for (const text of ['哈'.repeat(2000), '哈哈 '.repeat(600), '| --- '.repeat(500), '0, 0, 0, 1, '.repeat(400), '0 1 '.repeat(500), 'X O '.repeat(500), 'ha ha '.repeat(400)]) {
      expect(feed(text, 'text', { config: only })).toBeUndefined()
    }
    // Three distinct tokens are a loop, in a list or in a sentence.
    expect(feed('go, on, now, '.repeat(400), 'text', { config: only })?.rule).toBe('token-period')
    expect(feed('go on now. '.repeat(400), 'text', { config: only })?.rule).toBe('token-period')
  })

  // A real Llama 4 Maverick chapter (longform-writing held-out sweep) ran 20 K chars of "to uncover",
  // now and then "to explore", and a DeepCoder trace stuttered "Wait, no." for 1.5 K: two words.
  it('cuts two words said again back to back 16 times, in runs broken now and then', () => {
    const only = { textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, maxIdenticalChunks: 0, symbolRunMinChars: 0, noveltyMinSpan: 0 }
    expect(feed('to uncover '.repeat(15) + PROSE_EN, 'text', { config: only })).toBeUndefined()
    for (const loop of ['to uncover '.repeat(16), 'Wait, no. '.repeat(16), ('to uncover '.repeat(17) + 'to explore ').repeat(20)]) {
      // Text after the loop, so the stride holding its 16th copy is read.
      const { trip, latency } = feedAfter(PROSE_EN, loop + PROSE_EN, 'text', { config: only })
      expect(trip?.rule).toBe('token-period')
      expect(latency).toBeLessThanOrEqual(16 * 11 + 16)
    }
    // Below 3 distinct tokens the words-alone check applies whatever tokenPeriodMinDistinct is.
    expect(feed('0 1 '.repeat(500), 'text', { config: { ...only, tokenPeriodMinDistinct: 1 } })).toBeUndefined()
    expect(feed('to uncover '.repeat(400), 'text', { config: { ...only, tokenPeriodMinDistinct: 3 } })).toBeUndefined()
  })

  it('follows a block that looks like data (a third of its tokens without a letter) until dataMinSpan', () => {
    const only = { textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0, maxIdenticalChunks: 0 }
    const row = '| GPIO | input | up | high |\n'
    expect(feed(row.repeat(Math.floor(DEFAULT_CONFIG.dataMinSpan / row.length) - 2), 'text', { config: only })).toBeUndefined()
    const trip = feed(row.repeat(2 * Math.ceil(DEFAULT_CONFIG.dataMinSpan / row.length)), 'text', { config: only })
    expect(trip?.rule).toBe('token-period')
    expect(trip!.repeatedChars).toBeGreaterThanOrEqual(DEFAULT_CONFIG.dataMinSpan)
    expect(trip!.at).toBeLessThanOrEqual(DEFAULT_CONFIG.dataMinSpan + 2 * row.length + 32 + 16)
  })

  it('follows a block of values alone until valuesMinSpan, and a record of braces and quoted numbers until dataMinSpan', () => {
    const only = { textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0, maxIdenticalChunks: 0 }
    const values = '1 6 7 2 8 3 2 7 4 5 9 0 '
    expect(feed(values.repeat(Math.floor(DEFAULT_CONFIG.valuesMinSpan / values.length) - 2), 'text', { config: only })).toBeUndefined()
    const trip = feed(values.repeat(2 * Math.ceil(DEFAULT_CONFIG.valuesMinSpan / values.length)), 'text', { config: only })!
    expect(trip.rule).toBe('token-period')
    expect(trip.at).toBeLessThanOrEqual(DEFAULT_CONFIG.valuesMinSpan + 2 * values.length + 32 + 16)
    const record = '{ "ar": { "_distance": "10", "_oneway": "true" } },\n'
    const span = (DEFAULT_CONFIG.valuesMinSpan + DEFAULT_CONFIG.dataMinSpan) / 2
    expect(feed(record.repeat(Math.floor(span / record.length)), 'text', { config: only })).toBeUndefined()
  })

  it('cuts a block of expressions at its repeat count, as code', () => {
    const only = { textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0, maxIdenticalChunks: 0 }
    const expressions = '3 * 7 + 2 = 23, 4 + 5 * 3 = 19; '
    const trip = feed(expressions.repeat(60), 'text', { config: only })!
    expect(trip.rule).toBe('token-period')
    expect(trip.at).toBeLessThanOrEqual(DEFAULT_CONFIG.tokenPeriodMinRepeats * expressions.length + 32 + 16)
  })

  it('is switched off by a repeat count of 0', () => {
    const loop = drifting('let me check the file again.', 40)
    const others = { textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    expect(feed(loop, 'text', { config: others })?.rule).toBe('token-period')
    expect(feed(loop, 'text', { config: { ...others, tokenPeriodMinRepeats: 0 } })).toBeUndefined()
  })
})
