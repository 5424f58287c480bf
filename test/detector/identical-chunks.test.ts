import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, StreamDetector, type Side, type Trip } from '../../src/detector/index.ts'

function pushAll(side: Side, deltas: string[], detector = new StreamDetector()): Trip | undefined {
  let trip: Trip | undefined
  for (const delta of deltas) trip = detector.push(side, delta) ?? trip
  return trip
}

describe('identical chunks', () => {
  it('cuts a run of blank deltas at the threshold, not one before', () => {
    const limit = DEFAULT_CONFIG.maxIdenticalChunks
    expect(pushAll('text', ['Here is the plan.', ...Array(limit - 1).fill('\n')])).toBeUndefined()
    const trip = pushAll('text', ['Here is the plan.', ...Array(limit).fill('\n')])
    expect(trip).toMatchObject({ rule: 'identical-chunks', side: 'text', at: 17 + limit, loopStart: 18, repeatedChars: limit - 1 })
  })

  it('cuts one token streamed again and again', () => {
    const trip = pushAll('reasoning', Array(200).fill('Go.'))
    expect(trip?.rule).toMatch(/identical-chunks|cycle|token-period|phrase-pool/)
    const onlyChunks = { reasoningCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, reasoningPoolMinRepeatedChars: 0 }
    expect(pushAll('reasoning', Array(200).fill('Go.'), new StreamDetector(onlyChunks))).toMatchObject({ rule: 'identical-chunks', at: 180 })
  })

  it('lets a run of one repeated visible character through (laughter, dividers)', () => {
    expect(pushAll('text', Array(500).fill('哈'))).toBeUndefined()
    expect(pushAll('text', Array(500).fill('=='))).toBeUndefined()
  })

  it('leaves a run of one emoji to symbol-run in every phase of the split, a delta of two half characters included', () => {
    // "😀 " is three UTF-16 units, so 3-char deltas cut every emoji in the same place: in one phase each
    // delta holds the second half of one emoji, a space and the first half of the next.
    const run = '😀 '.repeat(200)
    const onlyChunks = { reasoningCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, reasoningPoolMinRepeatedChars: 0, symbolRunMinChars: 0 }
    for (const phase of [0, 1, 2]) {
      const text = 'Here is the plan. '.slice(0, 16 + phase) + run
      const deltas = text.match(/[\s\S]{1,3}/g)!
      expect(pushAll('reasoning', deltas, new StreamDetector(onlyChunks)), `phase ${phase}`).toBeUndefined()
      expect(pushAll('reasoning', deltas)?.rule, `phase ${phase}`).toBe('symbol-run')
    }
  })

  it('uses the higher tool-side count', () => {
    const deltas = Array(DEFAULT_CONFIG.maxIdenticalChunks + 10).fill('\\n')
    expect(pushAll('tool', deltas)).toBeUndefined()
    const onlyChunks = { toolCycleMaxPeriod: 0, toolTokenPeriodMinRepeats: 0, toolPoolMinRepeatedChars: 0 }
    expect(pushAll('tool', Array(DEFAULT_CONFIG.toolMaxIdenticalChunks).fill('ab'), new StreamDetector(onlyChunks))?.rule).toBe('identical-chunks')
  })

  it('is switched off by a count of 0', () => {
    expect(pushAll('text', Array(500).fill('\n'), new StreamDetector({ maxIdenticalChunks: 0 }))).toBeUndefined()
  })
})
