// The defaults flow of the real-CLI e2e (test/e2e/run.sh steps 9–11) expects its counter loop to be cut
// by the novelty rule; these checks say so in milliseconds, at the deltas the scripted model streams,
// instead of after the e2e's 90 s.
import { describe, expect, it } from 'vitest'
import { StreamDetector, type DetectorConfig, type Trip } from '../../src/detector/index.ts'
import { counterLoop } from '../e2e/script.mjs'

/** Streams the loop one sentence per delta, as test/e2e/scripted-model.mjs does, up to `limit` chars. */
function firstTrip(config: Partial<DetectorConfig> | undefined, limit: number): { trip?: Trip, streamed: string } {
  const detector = new StreamDetector(config)
  let streamed = ''
  for (const sentence of counterLoop()) {
    streamed += sentence
    const trip = detector.push('text', sentence)
    if (trip || streamed.length > limit) return { trip, streamed }
  }
  throw new Error('unreachable: the loop is endless')
}

describe('the e2e\'s counter loop (a numbered, timed step whose verb cycles through synonyms)', () => {
  it('is cut by the novelty rule with every setting at its default, within 2,048 chars, after the prologue', () => {
    const { trip, streamed } = firstTrip(undefined, 2048)
    expect(trip).toMatchObject({ rule: 'novelty', side: 'text' })
    expect(trip!.loopStart).toBeGreaterThan(streamed.indexOf('Step 14'))
  })

  it('is cut by no verbatim rule: with the novelty rule off nothing trips in 64 K chars', () => {
    expect(firstTrip({ noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }, 65_536).trip).toBeUndefined()
  })
})
