import { describe, expect, it } from 'vitest'
import { StreamDetector } from '../../src/detector/index.ts'
import { PROSE_EN, SEED_POOL_EN, periodic, reshuffled } from '../fixtures/detector/loops.mjs'

describe('StreamDetector contract', () => {
  it('returns undefined until a rule fires, then the same frozen Trip for every later push on any side', () => {
    const detector = new StreamDetector()
    expect(detector.push('text', PROSE_EN)).toBeUndefined()
    let trip
    const loop = periodic(150, 3000, PROSE_EN, 100)
    for (let at = 0; at < loop.length && !trip; at += 7) trip = detector.push('reasoning', loop.slice(at, at + 7))
    expect(trip).toBeDefined()
    expect(Object.isFrozen(trip)).toBe(true)
    expect(detector.push('reasoning', 'more')).toBe(trip)
    expect(detector.push('text', PROSE_EN)).toBe(trip)
    expect(detector.push('tool', '{}')).toBe(trip)
    expect(Object.keys(trip!).sort()).toEqual(['at', 'loopStart', 'repeatedChars', 'rule', 'side'])
  })

  it('counts `at` in UTF-16 units of that side only, including the whole tripping delta', () => {
    const detector = new StreamDetector()
    // Astral chars on another side, short of a symbol run (symbolRunMinChars): `at` counts only this side's units.
    detector.push('text', '😀 '.repeat(40))
    const loop = reshuffled(SEED_POOL_EN, '\n', 5000)
    let streamed = 0
    let trip
    for (let at = 0; at < loop.length && !trip; at += 50) {
      const delta = loop.slice(at, at + 50)
      streamed += delta.length
      trip = detector.push('reasoning', delta)
    }
    expect(trip?.side).toBe('reasoning')
    expect(trip!.at).toBe(streamed)
    expect(trip!.loopStart).toBeLessThan(trip!.at)
  })

  it('watches the sides independently: interleaving text does not break a reasoning loop', () => {
    const detector = new StreamDetector()
    const loop = periodic(200, 4000, PROSE_EN, 0)
    let trip
    for (let at = 0; at < loop.length && !trip; at += 10) {
      detector.push('text', PROSE_EN.slice(at % 1500, (at % 1500) + 10))
      trip = detector.push('reasoning', loop.slice(at, at + 10))
    }
    expect(trip).toMatchObject({ rule: 'cycle', side: 'reasoning' })
  })

  it('ignores empty deltas and rejects an unknown side loudly', () => {
    const detector = new StreamDetector()
    expect(detector.push('text', '')).toBeUndefined()
    expect(() => detector.push('image' as never, 'x')).toThrow(/loop-breaker: side must be one of reasoning, text, tool \(got image\)/)
  })

  it('validates its config', () => {
    expect(() => new StreamDetector({ textCycleMinSpan: 4 })).toThrow('loop-breaker: textCycleMinSpan must be at least 16 (got 4)')
  })
})
