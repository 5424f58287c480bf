import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type DetectorConfig, type Side } from '../../src/detector/index.ts'
import { feedFixed } from './feed.ts'
import { NORMAL_SHAPES } from '../fixtures/detector/normal-shapes.mjs'
import { productiveProse, writeArguments } from '../fixtures/detector/loops.mjs'

const { symbolRunMinChars, toolSymbolRunMinChars, cycleCheckStride } = DEFAULT_CONFIG


// Runs of one mark in any script, with or without spaces, after a productive prefix.
const RUNS = ['.', '。', '!', '! ', '…', '—', 'ー', '😀', '❤️', 'a ', '好', '哈 ', '#', '* ', '?\n']

describe('symbol run', () => {
  for (const language of ['en', 'zh'] as const) {
    const prefix = productiveProse(2000, language, 9)
    for (const side of ['reasoning', 'text'] as const) {
      it(`cuts a run of one mark (${language} prefix, ${side}) at symbolRunMinChars, the same cut at 3/16/64-char deltas`, () => {
        for (const mark of RUNS) {
          const run = mark.repeat(Math.ceil(10_000 / mark.length))
          const trips = [3, 16, 64].map((delta) => feedFixed(prefix + run, side, delta))
          for (const trip of trips) {
            expect(trip?.rule, JSON.stringify(mark)).toBe('symbol-run')
            expect({ loopStart: trip!.loopStart, repeatedChars: trip!.repeatedChars }, JSON.stringify(mark))
              .toEqual({ loopStart: trips[0]!.loopStart, repeatedChars: trips[0]!.repeatedChars })
            expect(trip!.loopStart, JSON.stringify(mark)).toBeGreaterThanOrEqual(prefix.length - 2)
            expect(trip!.at - prefix.length, JSON.stringify(mark)).toBeLessThanOrEqual(symbolRunMinChars + cycleCheckStride + 64)
          }
        }
      })
    }
  }

  it('cuts a run written into a file through a tool call at the tool-side length', () => {
    const args = writeArguments('out.txt', '!\n'.repeat(6000))
    const trip = feedFixed(args, 'tool', 16)
    expect(trip?.rule).toBe('symbol-run')
    expect(trip!.repeatedChars).toBeGreaterThanOrEqual(toolSymbolRunMinChars)
    expect(trip!.at).toBeLessThanOrEqual(toolSymbolRunMinChars + cycleCheckStride + 64)
  })

  it('lets shorter runs and alternations through (dividers, laughter, padding, "0, 0, 0")', () => {
    for (const text of ['='.repeat(symbolRunMinChars - 40), '哈'.repeat(600), '-='.repeat(3000), '0, '.repeat(3000), '. . - '.repeat(1000)]) {
      for (const side of ['reasoning', 'text', 'tool'] as const) expect(feedFixed(text, side, 7), `${side} ${text.slice(0, 6)}`).toBeUndefined()
    }
    for (const name of ['==== and ---- dividers', '哈哈哈 laughter', 'markdown divider rows']) {
      expect(NORMAL_SHAPES.some((shape) => shape.name === name), name).toBe(true)
    }
  })

  it('is switched off by a length of 0', () => {
    expect(feedFixed('. '.repeat(5000), 'text', 16, { symbolRunMinChars: 0 })).toBeUndefined()
    expect(feedFixed('. '.repeat(5000), 'text', 16)?.rule).toBe('symbol-run')
  })
})
