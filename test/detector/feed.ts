// Streams text through a StreamDetector the way a provider does: in deltas whose sizes vary.
import { splitDeltas } from '../fixtures/detector/corpus.mjs'
import { StreamDetector, type DetectorConfig, type Side, type Trip } from '../../src/detector/index.ts'

/** Pushes `text` in deltas of 1–`maxDelta` chars (sizes drawn from `seed`); returns the first Trip. */
export function feed(text: string, side: Side, options: { seed?: number, maxDelta?: number, config?: Partial<DetectorConfig>, detector?: StreamDetector } = {}): Trip | undefined {
  const detector = options.detector ?? new StreamDetector(options.config)
  for (const delta of splitDeltas(text, options.seed ?? 1, options.maxDelta ?? 16)) {
    const trip = detector.push(side, delta)
    if (trip) return trip
  }
  return undefined
}

/** Streams a productive `prefix`, then `loop`; returns the Trip and how far into the loop it came. */
export function feedAfter(prefix: string, loop: string, side: Side, options: Parameters<typeof feed>[2] = {}) {
  const trip = feed(prefix + loop, side, options)
  return { trip, latency: trip ? trip.at - prefix.length : Infinity }
}

/** Pushes `text` in deltas of exactly `delta` chars; returns the first Trip. */
export function feedFixed(text: string, side: Side, delta: number, config?: Partial<DetectorConfig>): Trip | undefined {
  const detector = new StreamDetector(config)
  for (let at = 0; at < text.length; at += delta) {
    const trip = detector.push(side, text.slice(at, at + delta))
    if (trip) return trip
  }
  return undefined
}
