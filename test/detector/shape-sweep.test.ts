// Issue 12's acceptance, shape by shape: each loop shape that never repeats a unit verbatim is cut on
// every side within its latency bound (test/fixtures/detector/shapes.mjs, latencyBound), with the same
// rule and cut at 3, 16 and 64-char deltas; each legitimate look-alike (quoted tool output, data, a CI
// poll) never trips. `node dev/shape-sweep.mjs` prints the same sweep with latencies, for tuning.
import { describe, expect, it } from 'vitest'
import { StreamDetector } from '../../src/detector/index.ts'
import { SWEEP_SIDES, sweepLookAlike, sweepShape } from '../fixtures/detector/shape-sweep.mjs'
import { LOOK_ALIKES, LOOP_SHAPES } from '../fixtures/detector/shapes.mjs'

describe('loop shapes are cut within their latency bound, whatever the delta size', () => {
  for (const name of Object.keys(LOOP_SHAPES)) {
    for (const side of SWEEP_SIDES) {
      it(`${name} on ${side}`, () => {
        const { problems } = sweepShape(StreamDetector, undefined, name, side)
        expect(problems).toEqual([])
      })
    }
  }
})

describe('look-alikes never trip', () => {
  for (const name of Object.keys(LOOK_ALIKES)) {
    for (const side of SWEEP_SIDES) {
      it(`${name} on ${side}`, () => {
        expect(sweepLookAlike(StreamDetector, undefined, name, side)).toEqual([])
      })
    }
  }
})
