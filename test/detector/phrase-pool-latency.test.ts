import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, StreamDetector } from '../../src/detector/index.ts'
import { drawnPool, productiveProse, sentencePool } from '../fixtures/detector/loops.mjs'
import { phrasePoolLoop } from '../e2e/script.mjs'
import { feedAfter } from './feed.ts'

// Other rules stay out of the way, so the figures are the phrase-pool rule's own.
const poolOnly = { reasoningCycleMaxPeriod: 0, textCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, maxIdenticalChunks: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
const MAX_DELTA = 16
const { poolMinConcentration, poolWindowChars, poolWindowUnits, poolMinCoverage, cycleCheckStride } = DEFAULT_CONFIG

// A pool of K units of L chars (L + 1 streamed with its separator) trips once the stretch from where it
// began holds 4K sightings (concentration) and, over at least the 1,024-char window, 0.7 of it is
// repetition (717 repeated chars): after (L + 1) × max(4K, K + ⌈717 / L⌉) chars. On top of that come
// the unit whose end takes the verdict, one unit's worth of productive units the 1,024-char stretch
// still holds (they dilute concentration), the rest of the stride and the last delta.
function latencyBound(units: number, length: number): number {
  const needed = Math.max(poolMinConcentration * units, units + Math.ceil(poolMinCoverage * poolWindowChars / length))
  return (length + 1) * needed + 2 * (length + 1) + cycleCheckStride + MAX_DELTA
}

// The window holds 4K sightings when 4K ≤ poolWindowUnits or when 1,024 chars hold them.
const fitsWindow = (units: number, length: number) =>
  poolMinConcentration * units <= Math.max(poolWindowUnits, poolWindowChars / length)

describe('phrase-pool latency over pools of 3–12 units of 3–120 chars, after a 20,000-char productive prefix', () => {
  for (const language of ['en', 'zh'] as const) {
    const prefix = productiveProse(20_000, language)
    for (const layout of ['lines', 'one line'] as const) {
      const separator = layout === 'lines' ? '\n' : language === 'zh' ? '' : ' '
      for (const side of ['reasoning', 'text'] as const) {
        it(`${language}, ${layout}, ${side}: trips within the bound, loopStart where the pool began`, () => {
          let checked = 0
          for (const units of [3, 5, 8, 12]) {
            for (const length of [3, 10, 20, 30, 52, 80, 120]) {
              if (!fitsWindow(units, length)) continue
              const pool = drawnPool(sentencePool(units, length, language), separator, 12_000)
              const { trip, latency } = feedAfter(prefix, pool, side, { config: poolOnly, maxDelta: MAX_DELTA })
              const where = `${units} units of ${length} chars`
              expect(trip?.rule, where).toBe('phrase-pool')
              expect(latency, where).toBeLessThanOrEqual(latencyBound(units, length))
              if (latencyBound(units, length) <= 1500) expect(latency, where).toBeLessThanOrEqual(1500)
              expect(trip!.loopStart, where).toBe(prefix.length)
              checked++
            }
          }
          expect(checked).toBeGreaterThanOrEqual(20)
        })
      }
    }
  }

  it('the end-to-end run\'s pool (5 sentences of 45–65 chars, one per line) trips within 1,200 chars, loopStart 0', () => {
    const cut = (config: Partial<typeof DEFAULT_CONFIG>) => {
      const detector = new StreamDetector(config)
      for (const sentence of phrasePoolLoop()) {
        const trip = detector.push('text', sentence)
        if (trip) return trip
      }
    }
    const pool = cut({})
    expect(pool).toMatchObject({ rule: 'phrase-pool', side: 'text', loopStart: 0 })
    expect(pool!.at).toBeLessThanOrEqual(1200)
  })
})
